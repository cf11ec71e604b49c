#!/usr/bin/python3
"""Generic Health Sensor pulse oximeter (GHS 1.0, adopted UUIDs): Live Health Observations (2B8B, notify),
Stored Health Observations (2BDD, notify), Health Sensor Features (2BF3, read), Record Access Control Point
(2A52, write + indicate), GHS Control Point (2BF4, write + indicate), Observation Schedule Changed (2BF1,
indicate: once, when live observations start, SpO2 every second: observation type, measurement period and update
interval, uint32 and two FLOATs), and Current Elapsed Time (2BF2, read) in an Elapsed Time Service (183F). Health
Sensor Features carries an Observation Schedule descriptor (2910, the same layout) per supported observation type,
as GHS 1.0 places them; their reads are logged as `read descriptor 2910 of 2BF3`.

Observations are IEEE 11073-10206 numeric observations built from the GHS 1.0 field layout: SpO2
(MDC_PULS_OXIM_SAT_O2 150456, %) and pulse rate (MDC_PULS_OXIM_PULS_RATE 149530, bpm), each with an Elapsed Time
stamp (UTC, 1 s resolution). Every value goes out behind a Segmentation Header, split into
segments of --segment octets so the collector has to join them (a rolling counter per characteristic; live and
stored segments interleave while the bridge downloads).

On the first visit, once the collector writes Start Send Live Observations (01), it notifies --live pairs of
live observations (SpO2 95 + i % 3 %, pulse 70 + i bpm, one second apart in their stamps). It holds --records
stored records (record numbers 1…N, SpO2 97 and pulse 71 alternating, an hour apart). RACP: number of records and
report stored records with the operators all (01), greater than or equal to (03, filter type 01: a uint32 record
number) and last record (06); counts are uint32. Delete (02) is logged as `deleted` and performed (a test checks it
never happens). Every request is logged as `RACP <hex>`. After the first download it drops the link, takes one
more measurement (record N+1) and advertises again; after the second download (all or >=, not the last-record
probe) it marks `done`.
"""
import datetime
import struct

from gi.repository import GLib

import gattsim

SPO2, PULSE = 150456, 149530
PERCENT, BPM = 544, 2720
EPOCH = datetime.datetime(2000, 1, 1)


def options(parser):
    parser.add_argument('--live', type=int, default=3)
    parser.add_argument('--records', type=int, default=4)
    parser.add_argument('--segment', type=int, default=12)


def elapsed_time(moment):
    """Elapsed Time: flags 02 (UTC, 1 s), uint48 seconds since 2000, sync source 0, TZ/DST offset 0."""
    seconds = int((moment - EPOCH).total_seconds())
    return bytes([0x02]) + seconds.to_bytes(6, 'little') + bytes([0x00, 0x00])


def numeric(code, unit, value, moment):
    """A numeric observation body: class 01, Length, flags 0003 (type, time stamp), type, stamp, unit, FLOAT."""
    body = struct.pack('<HI', 0x0003, code) + elapsed_time(moment) + struct.pack('<H', unit)
    body += gattsim.float32(value, 0)
    return bytes([0x01]) + struct.pack('<H', len(body) + 3) + body


def main():
    args = gattsim.arguments(__doc__, options)
    sim = gattsim.Simulator(args, 'CB GHS Oximeter', service_uuids=['1840'])
    state = {'downloads': 0, 'deleted': 0, 'counters': {}, 'live': False, 'records': []}
    now = datetime.datetime.utcnow().replace(microsecond=0)

    def store(number, moment):
        code, unit, value = (SPO2, PERCENT, 97) if number % 2 else (PULSE, BPM, 71)
        state['records'].append((number, struct.pack('<I', number) + numeric(code, unit, value, moment)))

    for number in range(1, args.records + 1):
        store(number, now - datetime.timedelta(hours=args.records + 1 - number))

    ghs = sim.service('1840')
    live = ghs.add('2B8B', ['notify'])
    stored = ghs.add('2BDD', ['notify'])
    # Health Sensor Features: features 00, two supported observation types; it carries the Observation Schedule
    # descriptor (0x2910) of each: SpO2 measured over 1 s every 1 s, pulse rate over 4 s every 2 s.
    features = ghs.add('2BF3', ['read'], bytes([0x00, 0x02]) + struct.pack('<II', SPO2, PULSE))
    features.add_descriptor('2910', struct.pack('<III', SPO2, 1, 1))
    features.add_descriptor('2910', struct.pack('<III', PULSE, 4, 2))
    schedule = ghs.add('2BF1', ['indicate'])
    sim.service('183F').add('2BF2', ['read'], elapsed_time(now))

    def segments(characteristic, value):
        """The value behind Segmentation Headers: first/last bits and the characteristic's rolling counter."""
        parts = [value[i:i + args.segment] for i in range(0, len(value), args.segment)]
        out = []
        for index, part in enumerate(parts):
            header = (0x01 if index == 0 else 0) | (0x02 if index == len(parts) - 1 else 0)
            counter = state['counters'].get(characteristic.short, 0)
            out.append(bytes([header | counter << 2]) + part)
            state['counters'][characteristic.short] = (counter + 1) % 64
        return out

    def send_queue(queue, done=None):
        def tick():
            if not queue:
                return False
            characteristic, value = queue.pop(0)
            characteristic.send(value)
            if not queue and done:
                done()
            return bool(queue)

        GLib.timeout_add(30, tick)

    def racp_written(data):
        sim.log(f'RACP {data.hex()}')
        op = data[0] if data else 0
        operator = data[1] if len(data) > 1 else 0
        records = None
        if operator == 0x01 and len(data) == 2:
            records = list(state['records'])
        elif operator == 0x06 and len(data) == 2:
            records = state['records'][-1:]
        elif operator == 0x03 and len(data) == 7 and data[2] == 0x01:
            start = int.from_bytes(data[3:7], 'little')
            records = [record for record in state['records'] if record[0] >= start]
        queue = []

        def downloaded():
            state['downloads'] += 1
            sim.log(f'download {state["downloads"]} complete')
            sim.wake()

        if records is None:
            queue.append((racp, bytes([0x06, 0x00, op, 0x04])))
        elif op == 0x04:
            queue.append((racp, bytes([0x05, 0x00]) + len(records).to_bytes(4, 'little')))
        elif op == 0x02:
            state['deleted'] += len(records)
            sim.log(f'deleted {len(records)} records')
            state['records'] = []
            queue.append((racp, bytes([0x06, 0x00, op, 0x01])))
        elif op == 0x01:
            for _, value in records:
                queue += [(stored, segment) for segment in segments(stored, value)]
            queue.append((racp, bytes([0x06, 0x00, op, 0x01 if records else 0x06])))
            sim.log(f'sending records {[number for number, _ in records]}')
            send_queue(queue, downloaded if operator in (0x01, 0x03) else None)
            return
        else:
            queue.append((racp, bytes([0x06, 0x00, op, 0x02])))
        send_queue(queue)

    def control_point_written(data):
        sim.log(f'GHS CP {data.hex()}')
        if data[:1] == b'\x01':
            state['live'] = True
            sim.wake()
        control_point.send(bytes([0x80]))

    racp = ghs.add('2A52', ['write', 'indicate'], on_write=racp_written)
    control_point = ghs.add('2BF4', ['write', 'indicate'], on_write=control_point_written)
    sim.standard_services(model='GHS-SIM', serial='GHS-0001')

    def script(sim):
        yield sim.start_advertising()
        yield sim.wait_subscribed(live)
        yield sim.until(lambda: state['live'], 120, 'Start Send Live Observations')
        start = datetime.datetime.utcnow().replace(microsecond=0)
        # The schedule the live observations follow: SpO2, measured over 1 s, one per second (FLOAT 1 = 0x00000001).
        schedule.send(struct.pack('<III', SPO2, 1, 1))
        sim.log('schedule indicated')
        for i in range(args.live):
            moment = start + datetime.timedelta(seconds=i)
            for value in (numeric(SPO2, PERCENT, 95 + i % 3, moment), numeric(PULSE, BPM, 70 + i, moment)):
                for segment in segments(live, value):
                    live.send(segment)
            yield sim.sleep(0.2)
        sim.mark('live')
        yield sim.until(lambda: state['downloads'] >= 1, 120, 'a first download')
        sim.mark('download-1')
        yield sim.sleep(1)
        sim.disappear()
        yield sim.wait_disconnected()
        store(args.records + 1, datetime.datetime.utcnow().replace(microsecond=0))
        yield sim.sleep(1)
        yield sim.start_advertising()
        yield sim.until(lambda: state['downloads'] >= 2, 180, 'a second download')
        sim.log(f'records kept: {len(state["records"])}, deleted: {state["deleted"]}')
        yield sim.sleep(1)
        sim.disappear()
        yield sim.wait_disconnected()
        sim.mark('done')

    return sim.run(script)


if __name__ == '__main__':
    gattsim.main(main)
