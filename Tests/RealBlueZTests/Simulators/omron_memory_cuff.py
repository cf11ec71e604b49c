#!/usr/bin/python3
"""Omron memory-map cuff of the one-channel FE4A family (HEM-7380T1; the protocol facts are omblepy's,
deviceSpecific/hem-7380t1.py and its README): advertises as HEM-7380T1 with service FE4A, which holds one transmit
(db5b55e0-…, write) and one receive (49123040-…, notify) characteristic and no unlock characteristic; bonding
required (the operating system's bond is the pairing).

Its memory is 64 KiB of FF with two user areas of 100 16-byte little-endian records (from 0x01C4 and 0x0804),
holding --readings (USER:SYS/DIA/PULSE@MINUTES ago, comma-separated; users 0 and 1). Command packets (length,
type, address, count, 00, XOR) are answered as omblepy documents: start (0000) with 8000, read (0100) with 8100
and the bytes asked for, end (0F00) with 8F00; each answer goes out in 16-byte pieces, one after another on the
one receive characteristic. Any other command (a write, 01C0) is refused with status 01 and logged as `WRITE`
(a test checks it never happens). After the end of transmission it logs the reads and writes, drops the link and
marks `done`.
"""
import datetime
import struct

from gi.repository import GLib

import gattsim

TX = 'db5b55e0-aee7-11e1-965e-0002a5d5c51b'
RX = '49123040-aee8-11e1-a74d-0002a5d5c51b'
AREAS = [0x01C4, 0x0804]


def options(parser):
    parser.add_argument('--readings', default='0:128/82/66@60,0:131/85/70@30,0:125/80/64@10,1:140/90/75@20')


def record(systolic, diastolic, pulse, moment):
    """A 16-byte record: systolic - 25, diastolic, pulse, year - 2000; hour/day/month and second/minute as
    little-endian bit fields (omblepy's bit positions for this family); eight bytes unused."""
    when = moment.hour | moment.day << 5 | moment.month << 10
    clock = moment.second | moment.minute << 6
    return bytes([systolic - 25, diastolic, pulse, moment.year - 2000]) + struct.pack('<HH', when, clock) + bytes(8)


def xor(data):
    result = 0
    for byte in data:
        result ^= byte
    return result


def command(kind, address, count, data=b''):
    packet = bytes([len(data) + 8, kind >> 8, kind & 0xFF, address >> 8, address & 0xFF, count]) + data + b'\x00'
    return packet + bytes([xor(packet)])


def main():
    args = gattsim.arguments(__doc__, options)
    sim = gattsim.Simulator(args, 'HEM-7380T1', service_uuids=['FE4A'])
    sim.requires_bond = True
    memory = bytearray(b'\xff' * 0x10000)
    slots = [0, 0]
    now = datetime.datetime.utcnow().replace(microsecond=0)
    for entry in args.readings.split(','):
        user, rest = entry.split(':')
        values, minutes = rest.split('@')
        systolic, diastolic, pulse = (int(v) for v in values.split('/'))
        user = int(user)
        address = AREAS[user] + slots[user] * 16
        memory[address:address + 16] = record(systolic, diastolic, pulse, now - datetime.timedelta(minutes=int(minutes)))
        slots[user] += 1
    state = {'reads': 0, 'writes': 0, 'ended': False, 'pending': b'', 'queue': []}

    def tick():
        if not state['queue']:
            return False
        rx.send(state['queue'].pop(0))
        return bool(state['queue'])

    def tx_written(data):
        state['pending'] += bytes(data)
        pending = state['pending']
        if len(pending) < pending[0]:
            return
        packet, state['pending'] = pending[:pending[0]], b''
        if xor(packet) != 0 or len(packet) < 8:
            sim.log(f'bad packet {packet.hex()}')
            return
        kind, address, count = packet[1] << 8 | packet[2], packet[3] << 8 | packet[4], packet[5]
        if kind == 0x0000:
            sim.log('start of transmission')
            answer = command(0x8000, 0, 0x10, bytes(0x10))
        elif kind == 0x0100:
            state['reads'] += 1
            answer = command(0x8100, address, count, bytes(memory[address:address + count]))
        elif kind == 0x0F00:
            sim.log('end of transmission')
            state['ended'] = True
            sim.wake()
            answer = command(0x8F00, 0, 0)
        else:
            state['writes'] += 1
            sim.log(f'WRITE {packet.hex()}')
            answer = command(kind | 0x8000, address, 0, b'\x01')
        idle = not state['queue']
        state['queue'] += [answer[i:i + 16] for i in range(0, len(answer), 16)]
        if idle:
            GLib.timeout_add(20, tick)

    service = sim.service('FE4A')
    rx = service.add(RX, ['notify'])
    service.add(TX, ['write', 'write-without-response'], on_write=tx_written)
    sim.standard_services(manufacturer='OMRON (simulated)', model='HEM-7380T1', serial='OM-7380')

    def script(sim):
        yield sim.start_advertising()
        yield sim.wait_bonded()
        sim.log('bonded')
        yield sim.until(lambda: state['ended'], 240, 'the end of transmission')
        sim.log(f'reads: {state["reads"]}, writes: {state["writes"]}')
        yield sim.sleep(1)
        sim.disappear()
        yield sim.wait_disconnected()
        sim.mark('done')

    return sim.run(script)


if __name__ == '__main__':
    gattsim.main(main)
