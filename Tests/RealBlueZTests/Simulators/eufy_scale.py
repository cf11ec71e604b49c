#!/usr/bin/python3
"""Eufy Smart Scale P2 (T9148) that sends its weighings only after its AES login (C0-C3) on the FFF0 service: FFF1
(write, write without response) takes the collector's segments, FFF4 (notify) carries the scale's answers, FFF2
(notify) the weight frames.

The device side, written from the protocol facts (bdr99/eufylife-ble-client auth_handler.py and util.py;
ble-scale-sync src/scales/eufy-p2.ts), as the fake bluetoothd's scale is (Tests/BlueZTransportTests/Fixtures/
fake_bluez.py, EufyP2Scale), never from the bridge's Swift:

- key: MD5 of the scale's address as 12 upper-case hexadecimal digits; AES-128-CBC, PKCS #7, the IV sixteen
  ASCII '0'; a message is the base64 text of the ciphertext;
- a segment is `prefix, count, index, message length, up to 15 message bytes, XOR of the bytes before it`;
- C0 (the collector's id) is answered with C1 (the scale's id); C2 must decrypt to "<collector id>_<scale id>";
  C3 `01 00 01 status` (00: accepted) follows, then the weighing on FFF2: live frames (byte 12 = 01) and the final
  one (byte 12 = 00), 16 bytes shaped like the T9149's in ble-scale-sync issue #289 (`CF 0E 00 CF`, the weight
  little-endian in 0.01 kg at 6, bytes 8-10 (not a usable impedance, per the same issue), byte 15 the XOR of bytes
  2-14).

One visit per --weighings entry (kg:bytes 8-10 as a number): it advertises, logs in the collector, weighs, drops the link and
goes quiet, then comes back for the next. With --faults (one per visit: corrupt-c1 flips the XOR of its first C1
segment, wrong-key answers under another address's key) a visit's login fails on the collector's side: the scale
sends no weight on that link and waits for the collector to let it go. Logs `C0 from the collector`, `C2 accepted`
or `C2 refused`, and `login refused by the collector` when a link it never saw a C2 on went down.
"""
import base64
import functools
import hashlib

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

import gattsim

IV = b'0' * 16
OTHER_ADDRESS = '11:22:33:44:55:66'


def options(parser):
    parser.add_argument('--weighings', default='80.00:500,80.35:0', help='kg:bytes 8-10 (as a number) per visit')
    parser.add_argument('--faults', default='', help='one per visit: corrupt-c1 or wrong-key')
    parser.add_argument('--scale-id', default='T9148-SIM-0001')


def xor(data):
    return functools.reduce(lambda a, b: a ^ b, data, 0)


def key_of(address):
    return hashlib.md5(address.replace(':', '').upper().encode()).digest()


def encrypt(key, text):
    padder = padding.PKCS7(128).padder()
    data = padder.update(text.encode()) + padder.finalize()
    encryptor = Cipher(algorithms.AES(key), modes.CBC(IV)).encryptor()
    return base64.b64encode(encryptor.update(data) + encryptor.finalize())


def decrypt(key, message):
    try:
        decryptor = Cipher(algorithms.AES(key), modes.CBC(IV)).decryptor()
        data = decryptor.update(base64.b64decode(message)) + decryptor.finalize()
        unpadder = padding.PKCS7(128).unpadder()
        return (unpadder.update(data) + unpadder.finalize()).decode()
    except (ValueError, UnicodeDecodeError):
        return None


def segments(prefix, message):
    count = max(1, (len(message) + 14) // 15)
    out = []
    for index in range(count):
        body = bytes([prefix, count, index, len(message)]) + message[index * 15:(index + 1) * 15]
        out.append(body + bytes([xor(body)]))
    return out


def weight_frame(kilograms, extra, final):
    frame = bytearray(16)
    frame[0:4] = bytes([0xCF, 0x0E, 0x00, 0xCF])
    frame[6:8] = round(kilograms * 100).to_bytes(2, 'little')
    frame[8:11] = extra.to_bytes(3, 'little')
    frame[12] = 0x00 if final else 0x01
    frame[15] = xor(frame[2:15])
    return bytes(frame)


def main():
    args = gattsim.arguments(__doc__, options)
    # The first AES use loads the OpenSSL backend of python3-cryptography: the scale's first decrypt took 12 s under
    # TCG once, longer than the bridge waits for the answer to its login. Load it before advertising, as a scale's
    # firmware has its cipher ready.
    assert decrypt(bytes(16), encrypt(bytes(16), 'warm-up')) == 'warm-up'
    sim = gattsim.Simulator(args, 'eufy T9148', service_uuids=['FFF0'])
    weighings = [(float(kg), int(ohm)) for kg, ohm in (item.split(':') for item in args.weighings.split(',') if item)]
    faults = [fault for fault in args.faults.split(',') if fault]
    visit = {'fault': None, 'parts': {}, 'client': None, 'c2': None, 'queue': []}

    def key():
        return key_of(OTHER_ADDRESS if visit['fault'] == 'wrong-key' else sim.address)

    def queue(characteristic, frames):
        """Notifies `frames` 20 ms apart (the order a scale's radio keeps)."""
        visit['queue'].extend((characteristic, frame) for frame in frames)

        def tick():
            if not visit['queue'] or not sim.connected():
                visit['queue'].clear()
                return False
            target, frame = visit['queue'].pop(0)
            target.send(frame)
            return bool(visit['queue'])

        if len(visit['queue']) == len(frames):
            gattsim.GLib.timeout_add(20, tick)

    def written(data):
        if len(data) < 5 or xor(data[:-1]) != data[-1]:
            sim.log(f'bad segment {data.hex()}')
            return
        prefix, count, index = data[0], data[1], data[2]
        parts = visit['parts'].setdefault(prefix, [])
        if index == 0:
            parts.clear()
        parts.append(data[4:-1])
        if index + 1 < count:
            return
        message = b''.join(parts)
        parts.clear()
        text = decrypt(key(), message)
        if prefix == 0xC0:
            visit['client'] = text
            sim.log(f'C0 from the collector: {"decrypted" if text else "does not decrypt under our key"}')
            c1 = segments(0xC1, encrypt(key(), args.scale_id))
            if visit['fault'] == 'corrupt-c1':
                c1[0] = c1[0][:-1] + bytes([c1[0][-1] ^ 0xFF])
            queue(answers, c1)
        elif prefix == 0xC2:
            accepted = text is not None and visit['client'] is not None and text == f'{visit["client"]}_{args.scale_id}'
            visit['c2'] = accepted
            sim.log(f'C2 {"accepted" if accepted else "refused"}')
            body = bytes([0xC3, 0x01, 0x00, 0x01, 0x00 if accepted else 0x01])
            queue(answers, [body + bytes([xor(body)])])
            sim.wake()

    service = sim.service('FFF0')
    service.add('FFF1', ['write', 'write-without-response'], on_write=written)
    weights = service.add('FFF2', ['notify'])
    answers = service.add('FFF4', ['notify'])
    sim.standard_services(manufacturer='Eufy (simulated)', model='T9148', serial='EU-0001')

    def script(sim):
        visits = [(fault, None) for fault in faults] + [(None, weighing) for weighing in weighings]
        for number, (fault, weighing) in enumerate(visits, start=1):
            visit.update(fault=fault, parts={}, client=None, c2=None, queue=[])
            yield sim.start_advertising()
            yield sim.wait_connected(280)  # a loaded emulated guest starts the bridge slowly
            sim.log(f'visit {number}: connected' + (f' (fault: {fault})' if fault else ''))
            if weighing is None:
                # The collector refuses our C1 and lets us go: no C2 ever comes, no weight is sent.
                yield sim.until(lambda: visit['c2'] is not None or not sim.connected(), 120, 'the link to go down')
                sim.log('login refused by the collector' if visit['c2'] is None else 'C2 came despite the fault')
                yield from sim.leave()
            else:
                yield sim.until(lambda: visit['c2'] is not None, 120, 'C2')
                if not visit['c2']:
                    raise RuntimeError('the collector sent a C2 we cannot accept')
                yield sim.until(lambda: weights.notifying, 120, 'a subscription to FFF2')
                kilograms, extra = weighing
                frames = [weight_frame(kilograms - step, 0, False) for step in (0.60, 0.20, 0.05)]
                queue(weights, frames + [weight_frame(kilograms, extra, True)])
                yield sim.until(lambda: not visit['queue'], 60, 'the weighing to be sent')
                sim.log(f'visit {number}: weighed {kilograms:.2f} kg, bytes 8-10 {extra}')
                yield sim.sleep(1)
                yield from sim.leave()
            sim.mark(f'visit-{number}')
            yield sim.sleep(1)
        sim.mark('done')

    return sim.run(script)


if __name__ == '__main__':
    gattsim.main(main)
