#!/usr/bin/python3
"""Heart-rate strap: Heart Rate Measurement (2A37, notify) with one RR interval each, Body Sensor Location (2A38).

Notification i (from 0) carries heart rate 60 + i % 100 bpm (uint8) and RR interval 700 + i (1/1024 s), so a test
can check order, loss and duplicates from the store alone (every payload differs). It streams while the collector is subscribed:
  --drop-after K       drops the link after K notifications, then continues from K once the collector is back;
  --disappear-after K  stops advertising and drops the link after K, advertises again 5 s later;
  --pause-after K      stops after K and logs "MARK paused" (the scenario restarts bluetoothd), continues from K
                       once it re-registered with the new bluetoothd and the collector subscribed again.
"""
import struct

import gattsim


def options(parser):
    parser.add_argument('--count', type=int, default=40)
    parser.add_argument('--interval-ms', type=int, default=100)
    parser.add_argument('--drop-after', type=int)
    parser.add_argument('--disappear-after', type=int)
    parser.add_argument('--pause-after', type=int)


def measurement(i):
    return struct.pack('<BBH', 0x10, 60 + i % 100, 700 + i)


def main():
    args = gattsim.arguments(__doc__, options)
    sim = gattsim.Simulator(args, 'CB Heart Rate', service_uuids=['180D'])
    heart_rate = sim.service('180D')
    hrm = heart_rate.add('2A37', ['notify'])
    heart_rate.add('2A38', ['read'], bytes([1]))  # chest
    sim.standard_services(model='HRM-SIM', serial='HR-0001')

    def script(sim):
        yield sim.start_advertising()
        sent = 0
        subscriptions = 0
        while sent < args.count:
            yield sim.wait_subscribed(hrm, after=subscriptions)
            subscriptions = hrm.subscriptions
            sim.log(f'streaming from #{sent}')
            while sent < args.count and hrm.notifying:
                hrm.send(measurement(sent))
                sent += 1
                if sent in (args.drop_after, args.disappear_after, args.pause_after):
                    break
                yield sim.sleep(args.interval_ms / 1000)
            if sent == args.drop_after:
                yield sim.sleep(0.5)
                sim.drop_link()
                yield sim.wait_disconnected()
            elif sent == args.disappear_after:
                yield sim.sleep(0.5)
                sim.disappear()
                yield sim.wait_disconnected()
                yield sim.sleep(5)
                yield sim.start_advertising()
            elif sent == args.pause_after:
                generation = sim.bluez_generation
                sim.mark('paused')
                yield sim.until(lambda: sim.bluez_generation > generation and sim.advertising, 180,
                                'bluetoothd to come back')
                subscriptions = 0
                hrm.subscriptions = 0
        sim.log(f'sent {sent} notifications')
        sim.mark('done')

    return sim.run(script)


if __name__ == '__main__':
    gattsim.main(main)
