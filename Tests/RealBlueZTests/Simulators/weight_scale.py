#!/usr/bin/python3
"""Weight scale that must be bonded and have its clock set (named like an A&D UC-352BLE, whose profile says so).

Weight Scale (181D): Weight Measurement (2A9D, indicate), Weight Scale Feature (2A9E, read); Current Time (1805):
Current Time (2A2B, read/write). Its clock starts at 2000-01-01 00:00:00; only once the collector has bonded,
subscribed and written Current Time does it indicate its stored weigh-ins, stamped by its (now right) clock:
--weights kilograms at one-minute steps ending now. Reads other than Device Information are refused until the
link is bonded. Then it drops the link and goes quiet. With --passkey the bond needs that passkey (the device
side of the agent enters it).
"""
import datetime
import struct

import gattsim


def options(parser):
    parser.add_argument('--weights', default='72.40,72.55,72.70')


def main():
    args = gattsim.arguments(__doc__, options)
    sim = gattsim.Simulator(args, 'A&D_UC-352BLE_SIM', service_uuids=['181D'])
    sim.requires_bond = True
    clock = {'offset': datetime.datetime(2000, 1, 1) - datetime.datetime.utcnow(), 'written': False}

    def now():
        return datetime.datetime.utcnow() + clock['offset']

    def current_time_written(data):
        if len(data) < 10:
            raise gattsim.InvalidArgs('Current Time is 10 octets')
        year, month, day, hours, minutes, seconds = struct.unpack_from('<HBBBBB', data)
        written = datetime.datetime(year, month, day, hours, minutes, seconds) + datetime.timedelta(
            seconds=data[8] / 256)
        clock['offset'] = written - datetime.datetime.utcnow()
        clock['written'] = True
        sim.log(f'clock set to {written.isoformat()}')
        sim.wake()

    scale = sim.service('181D')
    measurement = scale.add('2A9D', ['indicate'])
    scale.add('2A9E', ['read'], struct.pack('<I', 0x01))  # time stamp supported
    current_time = sim.service('1805').add('2A2B', ['read', 'write'], bytes(10), on_write=current_time_written)
    sim.standard_services(manufacturer='A&D Medical (simulated)', model='UC-352BLE', serial='WS-0001')

    def script(sim):
        yield sim.start_advertising()
        yield sim.wait_bonded()
        sim.log('bonded')
        yield sim.wait_subscribed(measurement)
        yield sim.until(lambda: clock['written'], 120, 'the collector to write Current Time')
        weights = [float(w) for w in args.weights.split(',')]
        for i, kilograms in enumerate(weights):
            stamp = now() - datetime.timedelta(minutes=len(weights) - 1 - i)
            value = struct.pack('<BH', 0x02, round(kilograms / 0.005)) + gattsim.date_time(stamp)
            measurement.send(value)
        yield sim.wait_confirmed(measurement, len(weights))
        sim.log(f'{len(weights)} weigh-ins indicated and confirmed')
        # Done: like a real device, it ends the connection and goes quiet (the collector's session ends).
        sim.disappear()
        yield sim.wait_disconnected()
        sim.mark('done')

    current_time.value = bytes(10)
    return sim.run(script)


if __name__ == '__main__':
    gattsim.main(main)
