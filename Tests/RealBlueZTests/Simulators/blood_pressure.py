#!/usr/bin/python3
"""Blood-pressure cuff: Blood Pressure Measurement (2A35, indicate), Intermediate Cuff Pressure (2A36, notify,
never stored), Blood Pressure Feature (2A49, read).

Notifies the cuff pressure while inflating and deflating, then indicates the final reading in mmHg with time
stamp and pulse rate: --reading SYSTOLIC/DIASTOLIC/MAP/PULSE.
"""
import datetime

import gattsim


def options(parser):
    parser.add_argument('--reading', default='128/82/97/66')


def main():
    args = gattsim.arguments(__doc__, options)
    sim = gattsim.Simulator(args, 'CB Blood Pressure', service_uuids=['1810'])
    cuff = sim.service('1810')
    final = cuff.add('2A35', ['indicate'])
    intermediate = cuff.add('2A36', ['notify'])
    cuff.add('2A49', ['read'], (0x0000).to_bytes(2, 'little'))
    sim.standard_services(model='BP-SIM', serial='BP-0001')

    def script(sim):
        systolic, diastolic, mean, pulse = (int(v) for v in args.reading.split('/'))
        nan = gattsim.sfloat(0x7FF, 0)
        yield sim.start_advertising()
        yield sim.wait_subscribed(final)
        yield sim.until(lambda: intermediate.notifying, 30, 'a subscription to 2A36')
        yield sim.sleep(1)
        for pressure in (60, 120, 160, 140, 100):
            intermediate.send(bytes([0x00]) + gattsim.sfloat(pressure, 0) + nan + nan)
            yield sim.sleep(0.3)
        stamp = datetime.datetime.utcnow().replace(microsecond=0)
        final.send(bytes([0x06]) + gattsim.sfloat(systolic, 0) + gattsim.sfloat(diastolic, 0)
                   + gattsim.sfloat(mean, 0) + gattsim.date_time(stamp) + gattsim.sfloat(pulse, 0))
        yield sim.wait_confirmed(final, 1)
        # Done: like a real device, it ends the connection and goes quiet (the collector's session ends).
        sim.disappear()
        yield sim.wait_disconnected()
        sim.mark('done')

    return sim.run(script)


if __name__ == '__main__':
    gattsim.main(main)
