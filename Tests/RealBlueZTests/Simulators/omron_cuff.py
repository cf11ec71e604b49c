#!/usr/bin/python3
"""Blood-pressure cuff with the Omron BLEsmart Current Time handshake: advertises service 1810 with Manufacturer
Data of company 0x020E (Omron Healthcare); bonding required; Blood Pressure (1810): Blood Pressure Measurement
(2A35, indicate), Blood Pressure Feature (2A49, read); Current Time (1805): Current Time (2A2B, notify + write).

Once the collector has subscribed to both and read what it reads at connect, the cuff notifies its own Current
Time (its clock runs --behind seconds slow) and waits for the collector to write Current Time back (10 octets,
logged as `clock set to …`). Only then does it indicate its stored readings (--readings SYS/DIA/MAP/PULSE@MINUTES
ago, comma-separated), stamped with the times its clock gave them when they were taken. Without the write it
sends nothing. Then it drops the link and goes quiet.
"""
import datetime
import struct

import gattsim


def options(parser):
    parser.add_argument('--behind', type=int, default=82, help='seconds the cuff clock is behind')
    parser.add_argument('--readings', default='128/82/97/66@20,131/85/100/70@5')


def current_time(moment):
    """Current Time (0x2A2B): Date Time, day of week (1 = Monday), fractions256, adjust reason."""
    return gattsim.date_time(moment) + bytes([moment.isoweekday(), 0, 0])


def main():
    args = gattsim.arguments(__doc__, options)
    sim = gattsim.Simulator(args, 'CB Omron Cuff', service_uuids=['1810'], manufacturer_data={0x020E: b'\x01\x00'})
    sim.requires_bond = True
    clock = {'offset': datetime.timedelta(seconds=-args.behind), 'written': None}

    def now():
        return datetime.datetime.utcnow().replace(microsecond=0) + clock['offset']

    # The stored readings, stamped by the cuff's (slow) clock when they were taken.
    readings = []
    for entry in args.readings.split(','):
        values, minutes = entry.split('@')
        readings.append(([int(v) for v in values.split('/')], now() - datetime.timedelta(minutes=int(minutes))))

    def current_time_written(data):
        if len(data) != 10:
            raise gattsim.InvalidArgs('Current Time is 10 octets')
        year, month, day, hours, minutes, seconds = struct.unpack_from('<HBBBBB', data)
        written = datetime.datetime(year, month, day, hours, minutes, seconds)
        clock['offset'] = written - datetime.datetime.utcnow().replace(microsecond=0)
        clock['written'] = written
        sim.log(f'clock set to {written.isoformat()}')
        sim.wake()

    cuff = sim.service('1810')
    measurement = cuff.add('2A35', ['indicate'])
    feature = cuff.add('2A49', ['read'], (0x0000).to_bytes(2, 'little'))
    time_characteristic = sim.service('1805').add('2A2B', ['notify', 'write'], bytes(10),
                                                  on_write=current_time_written)
    sim.standard_services(manufacturer='OMRON (simulated)', model='BP-OMRON-SIM', serial='OM-0001')
    info = sim.app.services[-2].characteristics  # Device Information: the collector reads 2A29 and 2A24
    battery = sim.battery

    def collector_ready():
        return (measurement.notifying and time_characteristic.notifying and feature.reads > 0
                and info[0].reads > 0 and info[1].reads > 0 and battery.reads > 0)

    def script(sim):
        yield sim.start_advertising()
        yield sim.wait_bonded()
        sim.log('bonded')
        yield sim.until(collector_ready, 120, 'the collector to subscribe and read')
        yield sim.sleep(1.5)  # a cuff's own pace; the collector's session is listening by then
        stamp = now()
        time_characteristic.send(current_time(stamp))
        sim.log(f'notified its Current Time {stamp.isoformat()}')
        yield sim.until(lambda: clock['written'] is not None, 60, 'the collector to write Current Time')
        for (systolic, diastolic, mean, pulse), taken in readings:
            measurement.send(bytes([0x06]) + gattsim.sfloat(systolic, 0) + gattsim.sfloat(diastolic, 0)
                             + gattsim.sfloat(mean, 0) + gattsim.date_time(taken) + gattsim.sfloat(pulse, 0))
        yield sim.wait_confirmed(measurement, len(readings))
        sim.log(f'{len(readings)} readings indicated and confirmed')
        sim.disappear()
        yield sim.wait_disconnected()
        sim.mark('done')

    return sim.run(script)


if __name__ == '__main__':
    gattsim.main(main)
