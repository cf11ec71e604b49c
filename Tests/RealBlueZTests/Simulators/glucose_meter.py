#!/usr/bin/python3
"""Glucose meter that only speaks when asked, as Glucose Service meters do: bonding required; Glucose
Measurement (2A18, notify), Glucose Measurement Context (2A34, notify), Glucose Feature (2A51, read), Record
Access Control Point (2A52, write + indicate).

RACP (Glucose Profile 1.0): report stored records (01) and report number of stored records (04) with the
operators all records (01), greater than or equal to a sequence number (03, filter type 01) and last record (06);
delete stored records (02) is logged as `deleted` and performed (a test checks it never happens). Every request
is logged as `RACP <hex>`.

It holds --records stored records (sequence numbers 1…N, one an hour up to now, 100+N mg/dL). When a first download
has completed it takes --new more readings, drops the link, and advertises again; when the bridge has downloaded
again it marks `done` and goes quiet.
"""
import datetime

from gi.repository import GLib

import gattsim


def options(parser):
    parser.add_argument('--records', type=int, default=3)
    parser.add_argument('--new', type=int, default=2)


def main():
    args = gattsim.arguments(__doc__, options)
    sim = gattsim.Simulator(args, 'CB Glucose', service_uuids=['1808'])
    sim.requires_bond = True
    state = {'records': [], 'downloads': 0, 'deleted': 0, 'busy': False}

    def add_record(moment):
        sequence = len(state['records']) + 1
        milligrams = 100 + sequence
        value = (bytes([0x02]) + sequence.to_bytes(2, 'little') + gattsim.date_time(moment)
                 + gattsim.sfloat(milligrams, -5) + bytes([0x12]))
        state['records'].append((sequence, value))

    now = datetime.datetime.utcnow().replace(microsecond=0)
    for hours in range(args.records, 0, -1):
        add_record(now - datetime.timedelta(hours=hours))

    glucose = sim.service('1808')
    measurement = glucose.add('2A18', ['notify'])
    glucose.add('2A34', ['notify'])
    glucose.add('2A51', ['read'], (0x0000).to_bytes(2, 'little'))

    def selected(request):
        operator = request[1] if len(request) > 1 else 0
        if operator == 0x01:
            return list(state['records'])
        if operator == 0x06:
            return state['records'][-1:]
        if operator == 0x03 and len(request) >= 5 and request[2] == 0x01:
            low = int.from_bytes(request[3:5], 'little')
            return [r for r in state['records'] if r[0] >= low]
        return None

    def racp_written(data):
        sim.log(f'RACP {data.hex()}')
        op = data[0] if data else 0
        records = selected(data)
        queue = []
        # A download: report stored records, except the last-record probe.
        download = op == 0x01 and records is not None and data[1:2] != b'\x06'
        if records is None:
            queue.append((racp, bytes([0x06, 0x00, op, 0x04])))
        elif op == 0x04:
            queue.append((racp, bytes([0x05, 0x00]) + len(records).to_bytes(2, 'little')))
        elif op == 0x02:
            state['deleted'] += len(records)
            sim.log(f'deleted {len(records)} records')
            state['records'] = [r for r in state['records'] if r not in records]
            queue.append((racp, bytes([0x06, 0x00, op, 0x01])))
        elif op == 0x01:
            for sequence, value in records:
                queue.append((measurement, value))
            queue.append((racp, bytes([0x06, 0x00, op, 0x01 if records else 0x06])))
            sim.log(f'sending records {[sequence for sequence, _ in records]}')
        else:
            queue.append((racp, bytes([0x06, 0x00, op, 0x02])))

        # Records 30 ms apart; the RACP response a while after the last record. This simulator's own stack
        # (bluetoothd as the peripheral) sends a queued indication before notifications still queued behind a busy
        # link (src/shared/att.c picks its indication queue before its write queue), so on a loaded machine a
        # response sent 30 ms after the last record could overtake it, which a meter's firmware does not do.
        def tick():
            if not queue:
                return False
            characteristic, value = queue.pop(0)
            characteristic.send(value)
            if not queue and download:
                state['downloads'] += 1
                sim.log(f'download {state["downloads"]} complete')
                sim.wake()
            if queue and queue[0][0] is racp and characteristic is measurement:
                GLib.timeout_add(750, tick)
                return False
            return bool(queue)

        GLib.timeout_add(30, tick)

    racp = glucose.add('2A52', ['write', 'indicate'], on_write=racp_written)
    sim.standard_services(model='GL-SIM', serial='GL-0001')

    def script(sim):
        yield sim.start_advertising()
        yield sim.wait_bonded()
        sim.log('bonded')
        yield sim.until(lambda: state['downloads'] >= 1, 120, 'a first download')
        sim.mark('download-1')
        moment = datetime.datetime.utcnow().replace(microsecond=0)
        for minutes in range(args.new, 0, -1):
            add_record(moment - datetime.timedelta(minutes=minutes))
        sim.log(f'{args.new} new readings; leaving')
        yield sim.sleep(1)
        sim.disappear()
        yield sim.wait_disconnected()
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
