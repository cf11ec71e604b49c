#!/usr/bin/python3
"""Pulse oximeter: PLX Continuous Measurement (2A5F, notify, 1 Hz here 5 Hz), PLX Spot-check Measurement (2A5E,
indicate, with time stamp), PLX Features (2A60, read).

Streams --count continuous readings (SpO2 95 + i % 4 %, pulse 70 + i bpm), then indicates one spot-check
(SpO2 97 %, pulse 72 bpm) with its time stamp.
"""
import datetime

import gattsim


def options(parser):
    parser.add_argument('--count', type=int, default=10)
    parser.add_argument('--interval-ms', type=int, default=200)


def main():
    args = gattsim.arguments(__doc__, options)
    sim = gattsim.Simulator(args, 'CB Pulse Oximeter', service_uuids=['1822'])
    oximeter = sim.service('1822')
    spot = oximeter.add('2A5E', ['indicate'])
    continuous = oximeter.add('2A5F', ['notify'])
    oximeter.add('2A60', ['read'], (0x0000).to_bytes(2, 'little'))
    sim.standard_services(model='OX-SIM', serial='OX-0001')

    def script(sim):
        yield sim.start_advertising()
        yield sim.wait_subscribed(continuous)
        yield sim.until(lambda: spot.notifying, 30, 'a subscription to 2A5E')
        for i in range(args.count):
            continuous.send(bytes([0x00]) + gattsim.sfloat(95 + i % 4, 0) + gattsim.sfloat(70 + i, 0))
            yield sim.sleep(args.interval_ms / 1000)
        stamp = datetime.datetime.utcnow().replace(microsecond=0)
        spot.send(bytes([0x01]) + gattsim.sfloat(97, 0) + gattsim.sfloat(72, 0) + gattsim.date_time(stamp))
        yield sim.wait_confirmed(spot, 1)
        # Done: like a real device, it ends the connection and goes quiet (the collector's session ends).
        sim.disappear()
        yield sim.wait_disconnected()
        sim.mark('done')

    return sim.run(script)


if __name__ == '__main__':
    gattsim.main(main)
