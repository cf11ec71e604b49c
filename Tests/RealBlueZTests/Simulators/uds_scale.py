#!/usr/bin/python3
"""Multi-user body composition scale with the User Data Service, as Beurer BF720/BF850 and Sanitas SBF72 scales:
bonding required; User Data (181C): User Control Point (2A9F, write + indicate); Weight Scale (181D): Weight
Measurement (2A9D, indicate), Weight Scale Feature (2A9E, read); Body Composition (181B): Body Composition
Measurement (2A9C, indicate), Body Composition Feature (2A9B, read).

User Control Point (UDS 1.0): register new user (01 <consent code uint16>) gives the next free user index
(20 01 01 <index>); consent (02 <index> <code uint16>) answers success (20 02 01) or user not authorized
(20 02 05) for a wrong code or an unknown index; other op codes: op code not supported (20 <op> 02). Every write
is logged as `UCP <hex>`.

It already holds --other-users users (indexes 0…N-1, each with its own code and a weigh-in the bridge must never
get). Measurements are indicated only for the user consented on this link, with that user's index in the User ID
field: a weigh-in (weight, time stamp, user ID) and its body composition (body fat, time stamp, user ID,
impedance). Visit 1 takes --weights[0] and leaves; visit 2 takes --weights[1] and leaves; then `done`.
"""
import datetime
import struct

from gi.repository import GLib

import gattsim


def options(parser):
    parser.add_argument('--other-users', type=int, default=2)
    parser.add_argument('--weights', default='81.35,81.10', help='kilograms of the two visits')
    parser.add_argument('--fat', default='24.6,24.3', help='body fat percentages of the two visits')
    parser.add_argument('--impedance', default='512.3,515.0', help='ohms of the two visits')


def main():
    args = gattsim.arguments(__doc__, options)
    sim = gattsim.Simulator(args, 'CB UDS Scale', service_uuids=['181C', '181B', '181D'])
    sim.requires_bond = True
    users = {index: 9000 + index for index in range(args.other_users)}
    state = {'consented': None, 'registered': [], 'refused': 0}

    def ucp_written(data):
        sim.log(f'UCP {data.hex()}')
        op = data[0] if data else 0
        if op == 0x01 and len(data) == 3:
            index = len(users)
            users[index] = int.from_bytes(data[1:3], 'little')
            state['registered'].append(index)
            sim.log(f'registered user {index}')
            response = bytes([0x20, 0x01, 0x01, index])
        elif op == 0x02 and len(data) == 4:
            index, code = data[1], int.from_bytes(data[2:4], 'little')
            if users.get(index) == code:
                state['consented'] = index
                sim.log(f'consent for user {index}')
                response = bytes([0x20, 0x02, 0x01])
            else:
                state['refused'] += 1
                sim.log(f'consent refused for user {index}')
                response = bytes([0x20, 0x02, 0x05])
        else:
            response = bytes([0x20, op, 0x02])
        def respond():
            ucp.send(response)
            return False

        # The response is indicated after the write has been acknowledged, as a scale does.
        GLib.timeout_add(50, respond)

    uds = sim.service('181C')
    ucp = uds.add('2A9F', ['write', 'indicate'], on_write=ucp_written)
    scale = sim.service('181D')
    weight = scale.add('2A9D', ['indicate'])
    scale.add('2A9E', ['read'], struct.pack('<I', 0x01 | 0x02))  # time stamp, multiple users
    composition_service = sim.service('181B')
    composition = composition_service.add('2A9C', ['indicate'])
    composition_service.add('2A9B', ['read'], struct.pack('<I', 0x01 | 0x02 | 0x200))  # time, users, impedance
    sim.standard_services(manufacturer='Beurer (simulated)', model='BF720-SIM', serial='UDS-0001')

    weights = [float(w) for w in args.weights.split(',')]
    fats = [float(f) for f in args.fat.split(',')]
    impedances = [float(i) for i in args.impedance.split(',')]

    def weigh_in(visit, user):
        stamp = datetime.datetime.utcnow().replace(microsecond=0) - datetime.timedelta(seconds=30)
        weight.send(struct.pack('<BH', 0x06, round(weights[visit] / 0.005)) + gattsim.date_time(stamp)
                    + bytes([user]))
        composition.send(struct.pack('<HH', 0x0206, round(fats[visit] * 10)) + gattsim.date_time(stamp)
                         + bytes([user]) + struct.pack('<H', round(impedances[visit] * 10)))
        sim.log(f'visit {visit + 1}: weigh-in of user {user} indicated')

    def script(sim):
        yield sim.start_advertising()
        for visit in range(2):
            yield sim.wait_bonded()
            sim.log('bonded')
            yield sim.until(lambda: state['consented'] is not None, 120, 'a consent')
            yield sim.until(lambda: weight.notifying and composition.notifying, 30, 'subscriptions to 2A9D and 2A9C')
            weigh_in(visit, state['consented'])
            yield sim.wait_confirmed(weight, visit + 1)
            yield sim.wait_confirmed(composition, visit + 1)
            sim.mark(f'visit-{visit + 1}')
            state['consented'] = None
            yield sim.sleep(1)
            sim.disappear()
            yield sim.wait_disconnected()
            if visit == 0:
                yield sim.sleep(1)
                yield sim.start_advertising()
        sim.log(f'users: {sorted(users)}, registered: {state["registered"]}, refused: {state["refused"]}')
        sim.mark('done')

    return sim.run(script)


if __name__ == '__main__':
    gattsim.main(main)
