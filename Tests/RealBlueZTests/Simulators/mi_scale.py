#!/usr/bin/python3
"""Xiaomi Mi Body Composition Scale 2: each weigh-in is 181B Service Data in its advertisements (13 octets:
control 2, year 2, month, day, hour, minute, second, impedance 2, weight 2 in 1/200 kg) that changes as the
reading settles: unstable frames, the stabilised weight, the stabilised weight with impedance, load removed.
--weigh-ins KG:OHM,... (two by default), a few seconds apart. The bridge never connects (the profile's link is
broadcast).

A real scale keeps its address. bluetoothd gives a non-connectable ("broadcast") advertisement a new random
address every time one is registered, which would make every frame another device; so the simulator advertises
as a connectable peripheral, from its controller's public address.
"""
import datetime
import struct

import gattsim


def options(parser):
    parser.add_argument('--weigh-ins', default='72.5:500,71.9:520')
    parser.add_argument('--frame-ms', type=int, default=1200, help='how long each frame is advertised')


def frame(control, weight, impedance, stamp):
    return struct.pack('<BBHBBBBBHH', 0x02, control, stamp.year, stamp.month, stamp.day, stamp.hour,
                       stamp.minute, stamp.second, impedance, round(weight * 200))


def main():
    args = gattsim.arguments(__doc__, options)
    sim = gattsim.Simulator(args, 'MIBFS')

    def script(sim):
        for n, weigh_in in enumerate(args.weigh_ins.split(',')):
            kilograms, ohms = float(weigh_in.split(':')[0]), int(weigh_in.split(':')[1])
            stamp = datetime.datetime.utcnow().replace(microsecond=0)
            frames = [frame(0x00, kilograms * 0.6, 0, stamp), frame(0x00, kilograms - 0.3, 0, stamp),
                      frame(0x20, kilograms, 0, stamp), frame(0x22, kilograms, ohms, stamp),
                      frame(0xA2, kilograms, ohms, stamp)]
            for data in frames:
                yield sim.start_advertising(service_data={'181B': data})
                sim.record('advertisement', '181B', data)
                yield sim.sleep(args.frame_ms / 1000)
            sim.stop_advertising()
            sim.log(f'weigh-in {n + 1} done: {kilograms} kg, {ohms} ohm')
            yield sim.sleep(2)
        sim.mark('done')

    return sim.run(script)


if __name__ == '__main__':
    gattsim.main(main)
