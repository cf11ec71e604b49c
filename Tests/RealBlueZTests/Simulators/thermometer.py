#!/usr/bin/python3
"""Health thermometer: Temperature Measurement (2A1C, indicate), Intermediate Temperature (2A1E, notify, live
progress that is never stored), Temperature Type (2A1D, read: 2 = body).

Each measurement: three intermediate temperatures, then the final one in Celsius with time stamp and type
(mouth). After each measurement the thermometer disappears (stops advertising, drops the link), and comes back
for the next one, as a real one does between uses. --temperatures gives the finals (Celsius, one decimal).
"""
import datetime

import gattsim


def options(parser):
    parser.add_argument('--temperatures', default='36.8,37.4')


def main():
    args = gattsim.arguments(__doc__, options)
    sim = gattsim.Simulator(args, 'CB Thermometer', service_uuids=['1809'])
    thermometer = sim.service('1809')
    final = thermometer.add('2A1C', ['indicate'])
    intermediate = thermometer.add('2A1E', ['notify'])
    thermometer.add('2A1D', ['read'], bytes([2]))
    sim.standard_services(model='TH-SIM', serial='TH-0001')

    def script(sim):
        temperatures = [round(float(t) * 10) for t in args.temperatures.split(',')]
        for n, tenths in enumerate(temperatures):
            yield sim.start_advertising()
            yield sim.wait_subscribed(final, after=n)
            yield sim.until(lambda: intermediate.notifying, 30, 'a subscription to 2A1E')
            yield sim.sleep(1)  # the collector reads Device Information meanwhile
            for step in (-9, -5, -2):
                intermediate.send(bytes([0x00]) + gattsim.float32(tenths + step, -1))
                yield sim.sleep(0.3)
            stamp = datetime.datetime.utcnow().replace(microsecond=0)
            final.send(bytes([0x06]) + gattsim.float32(tenths, -1) + gattsim.date_time(stamp) + bytes([3]))
            yield sim.wait_confirmed(final, n + 1)
            sim.log(f'measurement {n + 1} confirmed')
            # Between uses it goes away (no advertising, link dropped) and comes back for the next one.
            sim.disappear()
            yield sim.wait_disconnected()
            if n + 1 < len(temperatures):
                sim.mark('gone')
                yield sim.sleep(3)
        sim.mark('done')

    return sim.run(script)


if __name__ == '__main__':
    gattsim.main(main)
