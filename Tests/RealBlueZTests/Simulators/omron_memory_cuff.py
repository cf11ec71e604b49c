#!/usr/bin/python3
"""Omron memory-map cuff (the protocol facts are omblepy's README and deviceSpecific/ files, cross-checked with
hass-omron's catalogue), of one of two families (--family):

- `fe4a` (default): the one-channel FE4A family (HEM-7380T1, omblepy's hem-7380t1.py): advertises as HEM-7380T1
  with service FE4A, which holds one transmit (db5b55e0-…, write) and one receive (49123040-…, notify)
  characteristic and no unlock characteristic; an answer's 16-byte pieces go out one after another on the one
  receive characteristic. User areas from 0x01C4 and 0x0804, no index pointers.
- `classic`: the multi-channel family (HEM-7361T, omblepy's hem-7361t.py): advertises as HEM-7361T with the Blood
  Pressure service 1810 (as these cuffs do in passive scans) and serves the vendor service
  ecbe3980-c9a2-11e1-b1bd-0002a5d5c51b: four transmit characteristics (a command's pieces, piece n on transmit n),
  four receive characteristics (an answer's piece n on receive n) and the unlock characteristic b305b680-… (write
  01 + the 16-byte key, answer 81 00; another key 81 0F; nothing is read before the unlock). User areas from 0x0098
  and 0x06D8; the index pointers at 0x0010 (per user, the slot the next record goes to, u16 little-endian).

Both require a bond (the operating system's bond is the pairing). Memory: 64 KiB of FF with two user areas of 100
16-byte little-endian records holding --readings (USER:SYS/DIA/PULSE@MINUTES ago, comma-separated; users 0 and 1).
Command packets (length, type, address, count, 00, XOR) are answered as omblepy documents: start (0000) with 8000,
read (0100) with 8100 and the bytes asked for, end (0F00) with 8F00. Any other command (a write, 01C0), and an
unlock that is not 01 + key (02 programs a key), is refused and logged as `WRITE` (a test checks it never happens).
After the end of transmission it logs the reads and writes, drops the link and marks `done`.
"""
import datetime
import struct

from gi.repository import GLib

import gattsim

CLASSIC_TX = ['db5b55e0-aee7-11e1-965e-0002a5d5c51b', 'e0b8a060-aee7-11e1-92f4-0002a5d5c51b',
              '0ae12b00-aee8-11e1-a192-0002a5d5c51b', '10e1ba60-aee8-11e1-89e5-0002a5d5c51b']
CLASSIC_RX = ['49123040-aee8-11e1-a74d-0002a5d5c51b', '4d0bf320-aee8-11e1-a0d9-0002a5d5c51b',
              '5128ce60-aee8-11e1-b84b-0002a5d5c51b', '560f1420-aee8-11e1-8184-0002a5d5c51b']
FAMILIES = {
    'fe4a': {'model': 'HEM-7380T1', 'advertised': 'FE4A', 'service': 'FE4A', 'tx': CLASSIC_TX[:1],
             'rx': CLASSIC_RX[:1], 'unlock': None, 'areas': [0x01C4, 0x0804], 'index': None},
    'classic': {'model': 'HEM-7361T', 'advertised': '1810', 'service': 'ecbe3980-c9a2-11e1-b1bd-0002a5d5c51b',
                'tx': CLASSIC_TX, 'rx': CLASSIC_RX, 'unlock': 'b305b680-aee7-11e1-a730-0002a5d5c51b',
                'areas': [0x0098, 0x06D8], 'index': 0x0010},
}
KEY = bytes.fromhex('deadbeaf12341234deadbeaf12341234')


def options(parser):
    parser.add_argument('--family', choices=sorted(FAMILIES), default='fe4a')
    parser.add_argument('--readings', default='0:128/82/66@60,0:131/85/70@30,0:125/80/64@10,1:140/90/75@20')


def record(systolic, diastolic, pulse, moment):
    """A 16-byte record: systolic - 25, diastolic, pulse, year - 2000; hour/day/month and second/minute as
    little-endian bit fields (omblepy's bit positions for both families); eight bytes unused."""
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


def received(sim, state, channel, data):
    """Adds the piece written to transmit `channel` (0 starts a packet) to `state['pending']`; returns the whole
    command as (kind, address, count, packet) once its length is in, or None (incomplete, or a bad XOR or still
    locked: logged)."""
    if channel == 0:
        state['pending'] = b''
    state['pending'] += bytes(data)
    pending = state['pending']
    if len(pending) < pending[0]:
        return None
    packet, state['pending'] = pending[:pending[0]], b''
    if xor(packet) != 0 or len(packet) < 8:
        sim.log(f'bad packet {packet.hex()}')
        return None
    if not state['unlocked']:
        sim.log(f'locked: ignored {packet.hex()}')
        return None
    return packet[1] << 8 | packet[2], packet[3] << 8 | packet[4], packet[5], packet


def main():
    args = gattsim.arguments(__doc__, options)
    family = FAMILIES[args.family]
    sim = gattsim.Simulator(args, family['model'], service_uuids=[family['advertised']])
    sim.requires_bond = True
    memory = bytearray(b'\xff' * 0x10000)
    slots = [0, 0]
    now = datetime.datetime.utcnow().replace(microsecond=0)
    for entry in args.readings.split(','):
        user, rest = entry.split(':')
        values, minutes = rest.split('@')
        systolic, diastolic, pulse = (int(v) for v in values.split('/'))
        user = int(user)
        address = family['areas'][user] + slots[user] * 16
        memory[address:address + 16] = record(systolic, diastolic, pulse, now - datetime.timedelta(minutes=int(minutes)))
        slots[user] += 1
    if family['index'] is not None:
        memory[family['index']:family['index'] + 4] = struct.pack('<HH', slots[0], slots[1])
    state = {'reads': 0, 'writes': 0, 'ended': False, 'unlocked': family['unlock'] is None, 'pending': b'',
             'queue': []}

    def tick():
        if not state['queue']:
            return False
        characteristic, piece = state['queue'].pop(0)
        characteristic.send(piece)
        return bool(state['queue'])

    def send(pieces):
        idle = not state['queue']
        state['queue'] += pieces
        if idle:
            GLib.timeout_add(20, tick)

    def unlock_written(data):
        accepted = data[:1] == b'\x01' and data[1:] == KEY
        if accepted:
            state['unlocked'] = True
            sim.log('unlocked')
        elif data[:1] != b'\x01':
            state['writes'] += 1
            sim.log(f'WRITE unlock {data.hex()}')
        send([(unlock, b'\x81\x00' if accepted else b'\x81\x0f')])

    def tx_written(channel, data):
        command_in = received(sim, state, channel, data)
        if command_in is None:
            return
        kind, address, count, packet = command_in
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
        pieces = [answer[at:at + 16] for at in range(0, len(answer), 16)]
        send([(rx[index % len(rx)], piece) for index, piece in enumerate(pieces)])

    service = sim.service(family['service'])
    rx = [service.add(uuid, ['notify']) for uuid in family['rx']]
    for index, uuid in enumerate(family['tx']):
        service.add(uuid, ['write', 'write-without-response'], on_write=lambda data, index=index: tx_written(index, data))
    unlock = service.add(family['unlock'], ['write', 'notify'], on_write=unlock_written) if family['unlock'] else None
    sim.standard_services(manufacturer='OMRON (simulated)', model=family['model'], serial='OM-' + family['model'][4:8])

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
