#!/usr/bin/python3
"""Wellue O2Ring with overnight oximetry files on Viatom's vendor service 14839AC4-7D7E-415C-9A42-167340CF2339:
requests are written to 8B00ACE7-… (write, write without response), answers notified on 0734594A-… in 20-byte
pieces.

The device side, written from the protocol facts (MackeyStingray/o2r at e8ad57f9: o2r/o2pkt.py, o2file.py,
o2state.py; a Pulox Checkme O2 reader's spo2.py), as the fake bluetoothd's ring is (Tests/BlueZTransportTests/
Fixtures/fake_bluez.py, ViatomRing), never from the bridge's Swift:

- request `AA cmd ~cmd block(u16le) length(u16le) data crc8`, answer `55 status ~status block length data crc8`,
  CRC-8 polynomial 0x07, initial 0;
- 0x14 information: JSON with `CurTIME` (the ring's clock, here the guest's UTC clock) and `FileList`; 0x03 open
  (name + NUL; answer: the size, u32le); 0x04 read one --block-size block; 0x05 close; 0x17 live values (SpO2 byte
  0, pulse rate byte 1, FF FF FF with the finger out). Any other command is answered with an error; there is none
  that deletes, and every request is logged as `request CMD block N` (an unexpected one as `UNEXPECTED`).
- a file (version 3): a 40-byte header (version, start as the ring's wall clock, size, duration), then 5-byte
  records (SpO2, pulse rate, invalid flag, motion, vibration) --interval seconds apart.

It holds two recordings: a night (--records records from 9 h ago, 4 s apart) and a nap of 20 records 2 s apart (from
2 h ago); some records of each have a finger-out pulse rate (FF: no pulse reading), are flagged invalid or have an
impossible SpO2 (no reading at all). What a collector must store of them is written to --expect as JSON lines
{"time", "spo2", "pulse"} (pulse null where the record gives no pulse reading).

First visit: the finger is on (live 98 % / 61 bpm); once the collector asked for live values it drops the link and
comes back with the finger out (live FF) for the second visit, where nothing is left to read. Marks `visit-1`, then
`done` after the second visit's live request, and logs `opened: [...]`, `reads: N, unexpected: N`.
"""
import datetime
import json

from gi.repository import GLib

import gattsim

SERVICE = '14839ac4-7d7e-415c-9a42-167340cf2339'
WRITE = '8b00ace7-eb0b-49b0-bbe9-9aee0a26e1a3'
NOTIFY = '0734594a-a8e7-4b1a-a6b1-cd5243059a57'


def options(parser):
    parser.add_argument('--records', type=int, default=450, help='records of the night file (4 s apart)')
    parser.add_argument('--block-size', type=int, default=512)
    parser.add_argument('--expect', help='write the readings a collector must store here (JSON lines)')


def crc8(data):
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def recording(start, interval, count, seed):
    """A version 3 file and the readings in it: (file bytes, [(time, spo2, pulse)])."""
    records, readings = [], []
    for index in range(count):
        spo2, pulse, invalid = 92 + (index * 7 + seed) % 8, 52 + (index * 5 + seed) % 30, 0
        if index % 37 == 11:
            pulse = 0xFF  # finger out
        elif index % 53 == 20:
            invalid = 1  # flagged invalid by the ring
        elif index % 61 == 30:
            spo2 = 0xFF  # no SpO2
        records.append(bytes([spo2, pulse, invalid, index % 3, 0]))
        if invalid == 0 and 10 <= spo2 <= 100:
            # A finger-out pulse rate (FF) drops the pulse rate, not the record's SpO2.
            readings.append(((start + datetime.timedelta(seconds=index * interval)).isoformat(), spo2,
                             pulse if pulse not in (0, 0xFF) else None))
    size = 40 + 5 * count
    header = (bytes([3, 0]) + start.year.to_bytes(2, 'little')
              + bytes([start.month, start.day, start.hour, start.minute, start.second])
              + size.to_bytes(4, 'little') + (interval * count).to_bytes(4, 'little'))
    header += bytes(40 - len(header))
    return header + b''.join(records), readings


def name_of(moment):
    return moment.strftime('%Y%m%d%H%M%S')


def main():
    args = gattsim.arguments(__doc__, options)
    sim = gattsim.Simulator(args, 'O2Ring 2345', service_uuids=[SERVICE])
    now = datetime.datetime.utcnow().replace(microsecond=0)
    night_start = now - datetime.timedelta(hours=9)
    nap_start = now - datetime.timedelta(hours=2)
    night, night_readings = recording(night_start, 4, args.records, 0)
    nap, nap_readings = recording(nap_start, 2, 20, 3)
    files = {name_of(night_start): night, name_of(nap_start): nap}
    if args.expect:
        with open(args.expect, 'w') as out:
            for time, spo2, pulse in night_readings + nap_readings:
                out.write(json.dumps({'time': time, 'spo2': spo2, 'pulse': pulse}) + '\n')
    state = {'open': None, 'opened': [], 'reads': 0, 'unexpected': 0, 'live': 0, 'finger': True, 'pieces': []}

    def answer(status, reply):
        packet = bytearray([0x55, status, status ^ 0xFF, 0, 0, len(reply) & 0xFF, len(reply) >> 8]) + reply
        packet.append(crc8(packet))
        if not notify.notifying:
            sim.log('answer dropped: the collector has not subscribed')
            return
        state['pieces'] += [bytes(packet[i:i + 20]) for i in range(0, len(packet), 20)]

        def tick():
            if not state['pieces'] or not sim.connected():
                state['pieces'].clear()
                return False
            notify.send(state['pieces'].pop(0))
            return bool(state['pieces'])

        if len(state['pieces']) == (len(packet) + 19) // 20:
            GLib.timeout_add(10, tick)

    def written(request):
        if len(request) < 8 or request[0] != 0xAA or request[1] ^ request[2] != 0xFF or crc8(request[:-1]) != request[-1]:
            sim.log(f'malformed request {request.hex()}')
            return
        command, block = request[1], request[3] | request[4] << 8
        data = request[7:7 + (request[5] | request[6] << 8)]
        sim.log(f'request {command:02x} block {block}')
        if command == 0x14:
            clock = datetime.datetime.utcnow().strftime('%Y-%m-%d,%H:%M:%S')
            text = json.dumps({'Region': 'CE', 'Model': '1652', 'HardwareVer': 'AA', 'SoftwareVer': '1.5.0',
                               'CurTIME': clock, 'FileList': ''.join(f'{name},' for name in files)},
                              separators=(',', ':'))
            answer(0, text.encode() + bytes(4))
        elif command == 0x03:
            name = data.split(b'\0')[0].decode(errors='replace')
            if name in files:
                state['open'] = files[name]
                state['opened'].append(name)
                answer(0, len(files[name]).to_bytes(4, 'little'))
            else:
                answer(1, bytes([0x09, 0, 0, 0]))
        elif command == 0x04:
            state['reads'] += 1
            content = state['open'] or b''
            answer(0, content[block * args.block_size:(block + 1) * args.block_size])
        elif command == 0x05:
            state['open'] = None
            answer(0, b'')
        elif command == 0x17:
            state['live'] += 1
            live = [98, 61, 0] if state['finger'] else [0xFF, 0xFF, 0xFF]
            answer(0, bytes(live + [0, 0, 0, 0, 80, 0, 2, 10, 1, 0]))
            sim.wake()
        else:
            state['unexpected'] += 1
            sim.log(f'UNEXPECTED request {request.hex()}')
            answer(1, bytes([0x0B, 0, 0, 0]))

    service = sim.service(SERVICE)
    service.add(WRITE, ['write', 'write-without-response'], on_write=written)
    notify = service.add(NOTIFY, ['notify'])
    sim.standard_services(manufacturer='Viatom (simulated)', model='O2Ring', serial='O2-0001')

    def script(sim):
        sim.log(f'files: {", ".join(f"{name} ({len(content)} bytes)" for name, content in files.items())}; '
                f'readings: {len(night_readings) + len(nap_readings)}')
        yield sim.start_advertising()
        yield sim.until(lambda: state['live'] >= 1, 280, 'the first live request')  # a slow bridge start
        yield sim.until(lambda: not state['pieces'], 30, 'the live answer to be sent')
        sim.log(f'visit 1: opened: {state["opened"]}, reads: {state["reads"]}')
        sim.mark('visit-1')
        yield sim.sleep(1)
        yield from sim.leave()
        state['finger'] = False
        yield sim.sleep(1)
        yield sim.start_advertising()
        yield sim.until(lambda: state['live'] >= 2, 280, 'the second live request')
        yield sim.until(lambda: not state['pieces'], 30, 'the live answer to be sent')
        sim.log(f'opened: {state["opened"]}, reads: {state["reads"]}, unexpected: {state["unexpected"]}')
        yield sim.sleep(1)
        yield from sim.leave()
        sim.mark('done')

    return sim.run(script)


if __name__ == '__main__':
    gattsim.main(main)
