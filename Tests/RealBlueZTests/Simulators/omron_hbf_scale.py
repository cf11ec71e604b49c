#!/usr/bin/python3
"""Omron HBF body-composition scale of the WLC class (--model HBF-702T, default, or HBF-222T), written from the
protocol facts openScale pull request #1463 publishes (OmronLib.kt's field description, OmronWlcHandler.kt's
conversation; docs/omron.md sums them up), with the packet framing and assembly the Omron cuffs share
(omron_memory_cuff.py).

The scale advertises as its model and serves the classic vendor service ecbe3980-c9a2-11e1-b1bd-0002a5d5c51b: four
transmit characteristics (a command's 16-byte pieces, piece n on transmit n), four receive characteristics (an
answer's piece n on receive n) and the unlock characteristic b305b680-… It requires a bond. Unlock: 01 + the 16-byte
key it holds (omblepy's default) is answered 81 00 and opens its memory; 02 (enter key programming) or 00 + key
(write a key) is what a collector sends to program a key: logged as `WRITE` and refused (81 0F), like a wrong key.

Memory: 64 KiB of FF; four user slots, each a ring of 30 records (HBF-702T: 48-byte records from 0x02C0, 0x0890,
0x0E60, 0x1430; HBF-222T: 32-byte records from 0x02C0, 0x06A0, 0x0A80, 0x0E60). --readings holds the records
(USER:WEIGHT/FAT/MUSCLE/VISCERAL/BMI/BMR/AGE@MINUTES ago, users 0-3, comma-separated), packed as big-endian bit
fields: weight (50 g) at 26 bits 4-15, body fat (0.1 %) at 2 bits 6-15, visceral fat at 2 bits 0-5 (half levels
on the HBF-702T), BMR (kcal) at 4 bits 4-15, skeletal muscle (0.1 %) at 6 bits 6-15, BMI (0.1) at 8 bits 6-15,
body age at 10 bits 0-6; year - 2000 at 7 bits 0-5, minute at 9 bits 0-5, month at 11 bits 0-3, day at 12 bits
3-7, hour at 12 (16 bits) bits 6-10, second at 13 bits 0-5.

Commands (length, type, address, count, 00, XOR): start (0000) answered 8000, read (0100) answered 8100 with the
bytes asked for, end (0F00) answered 8F00. A read of more than 32 bytes (openScale's largest) is refused with
status 01 and logged as `REFUSED` (the test checks the collector never asks for one). Any other command (a write,
01C0, which resets the unread counters and sets the clock in the vendor app) is refused and logged as `WRITE`.

Two visits: after the first end of transmission the scale drops the link and advertises again; after the second it
logs `reads: N, writes: W, refused: R`, drops the link and marks `done`.
"""
import datetime

from gi.repository import GLib

import gattsim
from omron_memory_cuff import CLASSIC_RX, CLASSIC_TX, KEY, command, received

SERVICE = 'ecbe3980-c9a2-11e1-b1bd-0002a5d5c51b'
UNLOCK = 'b305b680-aee7-11e1-a730-0002a5d5c51b'
MODELS = {
    'HBF-702T': {'size': 48, 'slots': [0x02C0, 0x0890, 0x0E60, 0x1430], 'visceral_step': 0.5},
    'HBF-222T': {'size': 32, 'slots': [0x02C0, 0x06A0, 0x0A80, 0x0E60], 'visceral_step': 1.0},
}
MAX_READ = 32


def options(parser):
    parser.add_argument('--model', choices=sorted(MODELS), default='HBF-702T')
    parser.add_argument('--readings', default='0:72.40/23.5/31.2/8/23.7/1520/34@90,'
                                              '1:58.25/28.4/26.9/4.5/21.2/1250/41@60,'
                                              '0:72.10/23.1/31.5/7.5/23.6/1515/34@30')


def put(record, offset, size, start_bit, bits, value):
    """ORs `value` into the `bits`-bit field starting at bit `start_bit` (from the least significant bit) of the
    big-endian `size`-byte integer at `offset`."""
    assert 0 <= value < 1 << bits, (offset, value)
    word = int.from_bytes(record[offset:offset + size], 'big') | value << start_bit
    record[offset:offset + size] = word.to_bytes(size, 'big')


def record(size, step, weight, fat, muscle, visceral, bmi, bmr, age, moment):
    data = bytearray(size)
    put(data, 26, 2, 4, 12, round(weight / 0.05))
    put(data, 2, 2, 6, 10, round(fat * 10))
    put(data, 2, 2, 0, 6, round(visceral / step))
    put(data, 4, 2, 4, 12, bmr)
    put(data, 6, 2, 6, 10, round(muscle * 10))
    put(data, 8, 2, 6, 10, round(bmi * 10))
    put(data, 10, 1, 0, 7, age)
    put(data, 7, 1, 0, 6, moment.year - 2000)
    put(data, 9, 1, 0, 6, moment.minute)
    put(data, 11, 1, 0, 4, moment.month)
    put(data, 12, 1, 3, 5, moment.day)
    put(data, 12, 2, 6, 5, moment.hour)
    put(data, 13, 1, 0, 6, moment.second)
    return bytes(data)


def main():
    args = gattsim.arguments(__doc__, options)
    model = MODELS[args.model]
    sim = gattsim.Simulator(args, args.model)
    sim.requires_bond = True
    memory = bytearray(b'\xff' * 0x10000)
    filled = [0, 0, 0, 0]
    now = datetime.datetime.utcnow().replace(microsecond=0)
    for entry in args.readings.split(','):
        user, rest = entry.split(':')
        values, minutes = rest.split('@')
        weight, fat, muscle, visceral, bmi, bmr, age = (float(v) for v in values.split('/'))
        user = int(user)
        moment = now - datetime.timedelta(minutes=int(minutes))
        address = model['slots'][user] + filled[user] * model['size']
        memory[address:address + model['size']] = record(model['size'], model['visceral_step'], weight, fat, muscle,
                                                         visceral, bmi, int(bmr), int(age), moment)
        filled[user] += 1
        sim.log(f'user {user + 1} record at {moment.isoformat()}: {values}')
    state = {'reads': 0, 'writes': 0, 'refused': 0, 'ends': 0, 'unlocked': False, 'pending': b''}

    def unlock_written(data):
        accepted = data[:1] == b'\x01' and data[1:] == KEY
        if accepted:
            state['unlocked'] = True
            sim.log('unlocked')
        elif data[:1] != b'\x01':
            # 02 (enter key programming) or 00 + key (write a key): never to be sent by the collector.
            state['writes'] += 1
            sim.log(f'WRITE unlock {data.hex()}')
        else:
            sim.log('unlock with another key refused')
        unlock.send(b'\x81\x00' if accepted else b'\x81\x0f')

    def tx_written(channel, data):
        command_in = received(sim, state, channel, data)
        if command_in is None:
            return
        kind, address, count, packet = command_in
        if kind == 0x0000:
            sim.log('start of transmission')
            answer = command(0x8000, 0, 0x10, bytes(0x10))
        elif kind == 0x0100 and count > MAX_READ:
            state['refused'] += 1
            sim.log(f'REFUSED read of {count} bytes at 0x{address:04X}')
            answer = command(0x8100, address, 0, b'\x01')
        elif kind == 0x0100:
            state['reads'] += 1
            answer = command(0x8100, address, count, bytes(memory[address:address + count]))
        elif kind == 0x0F00:
            state['ends'] += 1
            sim.log('end of transmission')
            sim.wake()
            answer = command(0x8F00, 0, 0)
        else:
            state['writes'] += 1
            sim.log(f'WRITE {packet.hex()}')
            answer = command(kind | 0x8000, address, 0, b'\x01')
        # Piece n on receive n, sent after the write's reply (an idle callback), in order.
        pieces = [answer[at:at + 16] for at in range(0, len(answer), 16)]

        def deliver():
            for index, piece in enumerate(pieces):
                rx[index].send(piece)
            return False

        GLib.idle_add(deliver)

    service = sim.service(SERVICE)
    rx = [service.add(uuid, ['notify']) for uuid in CLASSIC_RX]
    for index, uuid in enumerate(CLASSIC_TX):
        service.add(uuid, ['write', 'write-without-response'],
                    on_write=lambda data, index=index: tx_written(index, data))
    unlock = service.add(UNLOCK, ['write', 'notify'], on_write=unlock_written)
    sim.standard_services(manufacturer='OMRON (simulated)', model=args.model, serial='OM-' + args.model[4:8])

    def script(sim):
        yield sim.start_advertising()
        yield sim.wait_bonded()
        sim.log('bonded')
        yield sim.until(lambda: state['ends'] >= 1, 600, 'the first end of transmission')
        sim.log(f'visit 1: reads: {state["reads"]}, writes: {state["writes"]}, refused: {state["refused"]}')
        sim.mark('visit-1')
        yield sim.sleep(1)
        sim.disappear()
        yield sim.wait_disconnected()
        state['unlocked'] = False
        yield sim.sleep(1)
        yield sim.start_advertising()
        yield sim.until(lambda: state['ends'] >= 2, 600, 'the second end of transmission')
        sim.log(f'reads: {state["reads"]}, writes: {state["writes"]}, refused: {state["refused"]}')
        yield sim.sleep(1)
        sim.disappear()
        yield sim.wait_disconnected()
        sim.mark('done')

    return sim.run(script)


if __name__ == '__main__':
    gattsim.main(main)
