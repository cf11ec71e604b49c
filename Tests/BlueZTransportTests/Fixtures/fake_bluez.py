# A fake bluetoothd for CareBridge's tests: python-dbusmock's bluez5 template, extended with GATT objects,
# simulated peripherals driven by Recordings/ files, and fault injection.
#
# Run (on a private bus, see bluez-dbus.md section 11):
#   DBUS_SYSTEM_BUS_ADDRESS=<addr> /usr/bin/python3 -m dbusmock --system --template Tests/.../fake_bluez.py
#
# Control API on / (interface org.bluez.Mock), in addition to bluez5's AddAdapter/AddDevice/...:
#   AddAdapter(ss)              adapter with our discovery methods (fault injection, journal)
#   SetAdapterPowered(sb)       set Powered without a client
#   AddEufyP2Scale(sss)         adapter, address, JSON {"weighings": [[kg, impedance], ...], "key_address": ADDR,
#                               "scale_id": text, "c3_status": n, "corrupt_c1": bool}: a Eufy P2 scale that runs the
#                               C0/C1/C2/C3 AES handshake and only then notifies its weighings on FFF2
#   AddPeripheral(sss)          adapter, address, JSON {"name":..., "services": {"181D": [["2A9D","indicate"], ...]},
#                               "reads": {"2A29": "hex"}, "descriptors": {"2BF3": [["2910", "hex"], ...]}} — a
#                               connectable GATT device (descriptors read-only, under their characteristic)
#   Play(ssd)                   adapter, Recordings/ file, speed (<= 0: as fast as possible): adverts are emitted,
#                               notifications wait until the client subscribed, disconnects are simulated
#   Advertise(ss)               address, JSON {"name", "rssi", "serviceData": {"181B": "hex"}, "manufacturerData": {...}}
#   Notify(sss)                 address, characteristic UUID, hex
#   SetFault(ss)                name, value (see FAULTS)
#   RestartBluetoothd(u)        drop the org.bluez name, reset connections, reacquire after N ms
#   VanishDevice(s)             remove a device object (InterfacesRemoved); it comes back on its next advert
#   PlaybackStatus() -> s       JSON {"done": bool, "emitted": n, "pending": n, ...}
#   GetJournal() -> as          every client call and every emission, in order
#   NotificationTimes() -> ad   wall-clock time of each notification emitted (for the latency benchmark)

import base64
import functools
import hashlib
import json
import time

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

import dbus
from gi.repository import GLib

from dbusmock import OBJECT_MANAGER_IFACE, mockobject
from dbusmock.templates import bluez5

BUS_NAME = 'org.bluez'
MAIN_OBJ = '/'
SYSTEM_BUS = True
IS_OBJECT_MANAGER = True

MOCK_IFACE = 'org.bluez.Mock'
ADAPTER_IFACE = 'org.bluez.Adapter1'
DEVICE_IFACE = 'org.bluez.Device1'
SERVICE_IFACE = 'org.bluez.GattService1'
CHAR_IFACE = 'org.bluez.GattCharacteristic1'
DESC_IFACE = 'org.bluez.GattDescriptor1'
PROPS_IFACE = 'org.freedesktop.DBus.Properties'

BASE = '-0000-1000-8000-00805f9b34fb'

# Fault switches (SetFault name value):
#   start_discovery_in_progress  N      the next N StartDiscovery calls fail with org.bluez.Error.InProgress
#   never_resolve                ADDR   Connect succeeds but ServicesResolved never becomes true
#   disconnect_after             ADDR=N the device disconnects (once) after N notifications
#   vanish_after                 ADDR=N the device object vanishes (once) after N notifications
#   restart_after                N      bluetoothd restarts (once) after N notifications in total
#   notify_in_start_notify       1      a pending notification is emitted inside StartNotify, before its reply
#   late_characteristics         MS     GATT objects are exported MS after ServicesResolved
#   signal_connected             1      Connect also signals Connected = true (bluetoothd 5.66 does not)
#   forget_gatt                  1      GATT objects and notify sessions are dropped on every disconnect
FAULTS = {}
JOURNAL = []
NOTIFY_TIMES = []
PERIPHERALS = {}  # address -> Peripheral
STATE = {'mock': None, 'notifications': 0}


def full_uuid(text):
    t = text.lower()
    if t.startswith('0x'):
        t = t[2:]
    if len(t) == 4:
        return '0000' + t + BASE
    if len(t) == 8:
        return t + BASE
    if len(t) == 32:
        return f'{t[0:8]}-{t[8:12]}-{t[12:16]}-{t[16:20]}-{t[20:32]}'
    return t


def journal(entry):
    JOURNAL.append(entry)


def byte_array(data, variant_level=0):
    return dbus.Array([dbus.Byte(b) for b in data], signature='y', variant_level=variant_level)


def emit_changed(obj, iface, props):
    for name, value in props.items():
        obj.props.setdefault(iface, {})[name] = value
    obj.EmitSignal(PROPS_IFACE, 'PropertiesChanged', 'sa{sv}as', [
        iface, dbus.Dictionary(props, signature='sv'), dbus.Array([], signature='s')])


def manager():
    return mockobject.objects['/']


def device_path(adapter, address):
    return f'/org/bluez/{adapter}/dev_' + address.replace(':', '_').upper()


# ---------------------------------------------------------------------------------------------- adapter


def start_discovery(adapter):
    journal('StartDiscovery ' + adapter.__dbus_object_path__.split('/')[-1])
    remaining = int(FAULTS.get('start_discovery_in_progress', 0))
    if remaining > 0:
        FAULTS['start_discovery_in_progress'] = remaining - 1
        raise dbus.exceptions.DBusException('Operation already in progress', name='org.bluez.Error.InProgress')
    if adapter.props[ADAPTER_IFACE].get('Discovering'):
        raise dbus.exceptions.DBusException('Operation already in progress', name='org.bluez.Error.InProgress')
    bluez5.StartDiscovery(adapter)


def stop_discovery(adapter):
    journal('StopDiscovery ' + adapter.__dbus_object_path__.split('/')[-1])
    if not adapter.props[ADAPTER_IFACE].get('Discovering'):
        raise dbus.exceptions.DBusException('No discovery started', name='org.bluez.Error.Failed')
    bluez5.StopDiscovery(adapter)


def set_discovery_filter(adapter, discovery_filter):
    keys = ','.join(f'{k}={discovery_filter[k]}' for k in sorted(discovery_filter))
    journal('SetDiscoveryFilter ' + keys)
    bluez5.SetDiscoveryFilter(adapter, discovery_filter)


def remove_device(adapter, path):
    journal('RemoveDevice ' + str(path))
    bluez5.RemoveDevice(adapter, path)


@dbus.service.method(MOCK_IFACE, in_signature='ss', out_signature='s')
def AddAdapter(self, device_name, system_name):
    path = bluez5.AddAdapter(self, device_name, system_name)
    adapter = mockobject.objects[path]
    adapter.AddMethod(ADAPTER_IFACE, 'StartDiscovery', '', '', start_discovery)
    adapter.AddMethod(ADAPTER_IFACE, 'StopDiscovery', '', '', stop_discovery)
    adapter.AddMethod(ADAPTER_IFACE, 'SetDiscoveryFilter', 'a{sv}', '', set_discovery_filter)
    adapter.AddMethod(ADAPTER_IFACE, 'RemoveDevice', 'o', '', remove_device)
    return path


@dbus.service.method(MOCK_IFACE, in_signature='sb', out_signature='')
def SetAdapterPowered(self, device_name, powered):
    adapter = mockobject.objects['/org/bluez/' + device_name]
    emit_changed(adapter, ADAPTER_IFACE, {'Powered': dbus.Boolean(powered, variant_level=1)})


@dbus.service.method(MOCK_IFACE, in_signature='s', out_signature='')
def BlockAdapter(self, device_name):
    '''rfkill soft block: powered off, PowerState off-blocked, and Set(Powered, true) refused.'''
    adapter = mockobject.objects['/org/bluez/' + device_name]
    adapter.props[ADAPTER_IFACE]['Powered'] = dbus.Boolean(False, variant_level=1)
    adapter.props[ADAPTER_IFACE]['PowerState'] = dbus.String('off-blocked', variant_level=1)


# ---------------------------------------------------------------------------------------------- peripherals


class Peripheral:
    '''A simulated GATT device (or broadcaster) behind one Device1 object.'''

    def __init__(self, adapter, address, name, services, reads, descriptors=None):
        self.adapter = adapter
        self.address = address.upper()
        self.name = name
        self.services = services  # [(service uuid, [(char uuid, [flags])])]
        self.reads = reads  # char uuid (full) -> bytes
        self.descriptors = descriptors or {}  # char uuid (full) -> [(descriptor uuid (full), bytes)]
        self.notifying = set()  # char uuids (full)
        self.char_paths = {}  # char uuid -> path
        self.object_paths = []
        self.connected = False
        self.resolved = False
        self.last_advert = None
        self.last_advert_time = 0.0
        self.events = []
        self.position = 0
        self.speed = 0.0
        self.done = True
        self.delivered = 0
        self.faults_fired = set()
        self.ensure_device()

    @property
    def path(self):
        return device_path(self.adapter, self.address)

    def device(self):
        return mockobject.objects.get(self.path)

    def ensure_device(self):
        if self.device() is not None:
            return
        bluez5.AddDevice(manager(), self.adapter, self.address, self.name or '')
        dev = self.device()
        dev.AddMethod(DEVICE_IFACE, 'Connect', '', '', lambda obj: self.connect())
        dev.AddMethod(DEVICE_IFACE, 'Disconnect', '', '', lambda obj: self.disconnect('local'))
        dev.AddMethod(DEVICE_IFACE, 'Pair', '', '', lambda obj: self.pair())
        # bluez5 types these as aa{qv}/aa{sv}: fix them without UpdateProperties (broken in 0.28).
        dev.props[DEVICE_IFACE]['ManufacturerData'] = dbus.Dictionary({}, signature='qv', variant_level=1)
        dev.props[DEVICE_IFACE]['ServiceData'] = dbus.Dictionary({}, signature='sv', variant_level=1)
        dev.props[DEVICE_IFACE]['RSSI'] = dbus.Int16(-60, variant_level=1)
        if not self.name:
            del dev.props[DEVICE_IFACE]['Name']

    # -- advertising

    def advertise(self, advert):
        self.ensure_device()
        dev = self.device()
        props = {'RSSI': dbus.Int16(int(advert.get('rssi', -60)), variant_level=1)}
        if advert.get('name'):
            props['Name'] = dbus.String(advert['name'], variant_level=1)
        if advert.get('serviceUUIDs'):
            props['UUIDs'] = dbus.Array([full_uuid(u) for u in advert['serviceUUIDs']], signature='s', variant_level=1)
        if advert.get('serviceData'):
            props['ServiceData'] = dbus.Dictionary(
                {full_uuid(k): byte_array(bytes.fromhex(v), variant_level=1) for k, v in advert['serviceData'].items()},
                signature='sv', variant_level=1)
        if advert.get('manufacturerData'):
            props['ManufacturerData'] = dbus.Dictionary(
                {dbus.UInt16(int(k, 16)): byte_array(bytes.fromhex(v), variant_level=1)
                 for k, v in advert['manufacturerData'].items()},
                signature='qv', variant_level=1)
        emit_changed(dev, DEVICE_IFACE, props)
        self.last_advert = advert
        self.last_advert_time = time.monotonic()
        journal('advertise ' + self.address)

    def readvertise_if_idle(self):
        if not self.connected and time.monotonic() - self.last_advert_time > 0.3:
            self.advertise(self.last_advert or {'name': self.name, 'rssi': -60})

    # -- connection

    def connect(self):
        '''Device1.Connect as bluetoothd 5.66 answers it (seen on the real daemon in the VM test tier):

        - the method reply goes out first: bluetoothd's D-Bus layer batches property changes and object
          announcements into idle callbacks, which run after the reply is sent;
        - `Connected = true` is never signalled for a link the client initiated (the ATT channel comes up before
          the kernel's connected event, so the later state change is a no-op); the property reads true;
        - the GATT objects are registered (GetManagedObjects lists them) before `ServicesResolved = true` is
          signalled, and their InterfacesAdded follow it.
        Fault `signal_connected`: also signal `Connected = true` first (other BlueZ versions do).
        '''
        journal('Connect ' + self.address)
        if self.connected:
            raise dbus.exceptions.DBusException('Already Connected', name='org.bluez.Error.AlreadyConnected')
        self.connected = True
        dev = self.device()
        dev.props[DEVICE_IFACE]['Connected'] = dbus.Boolean(True, variant_level=1)
        if FAULTS.get('signal_connected'):
            GLib.idle_add(lambda: emit_changed(dev, DEVICE_IFACE, {'Connected': dbus.Boolean(True, variant_level=1)}))
        if FAULTS.get('never_resolve', '').upper() == self.address:
            return
        delay = int(FAULTS.get('late_characteristics', 0))
        if delay > 0:
            GLib.timeout_add(10, self.resolve_services)
            GLib.timeout_add(10 + delay, self.export_gatt)
        else:
            GLib.timeout_add(10, self.register_resolve_announce)

    def register_resolve_announce(self):
        if self.connected:
            pending = self.export_gatt(announce=False)
            self.resolve_services()

            # One object per main-loop iteration, as bluetoothd's per-object idle callbacks do.
            def announce_next():
                if pending and self.connected:
                    path, iface, props = pending.pop(0)
                    if path in mockobject.objects:
                        manager().EmitSignal(OBJECT_MANAGER_IFACE, 'InterfacesAdded', 'oa{sa{sv}}',
                                             [dbus.ObjectPath(path), {iface: props}])
                return bool(pending) and self.connected

            GLib.timeout_add(2, announce_next)
        return False

    def resolve_services(self):
        if self.connected and self.device() is not None:
            self.resolved = True  # notify sessions kept from before a reconnect deliver again from here
            journal('ServicesResolved ' + self.address)
            emit_changed(self.device(), DEVICE_IFACE, {'ServicesResolved': dbus.Boolean(True, variant_level=1)})
            if self.notifying:
                # bluetoothd re-enabled the CCCDs of the kept sessions: the device sends at once, before the
                # client has subscribed again (seen against bluetoothd 5.66).
                self.step_notifications(limit=1)
        return False

    def export_gatt(self, announce=True):
        '''Registers the GATT objects; announces them at once, or returns (path, interface, properties) to
        announce later.'''
        pending = []
        if not self.connected or self.char_paths:
            return pending
        handle = 0x10
        for service_uuid, chars in self.services:
            service_path = f'{self.path}/service{handle:04x}'
            service_props = {
                'UUID': dbus.String(service_uuid, variant_level=1),
                'Primary': dbus.Boolean(True, variant_level=1),
                'Device': dbus.ObjectPath(self.path, variant_level=1),
                'Handle': dbus.UInt16(handle, variant_level=1),
            }
            manager().AddObject(service_path, SERVICE_IFACE, service_props, [])
            self.object_paths.append(service_path)
            pending.append((service_path, SERVICE_IFACE, service_props))
            handle += 1
            for char_uuid, flags in chars:
                char_path = f'{service_path}/char{handle:04x}'
                char_props = {
                    'UUID': dbus.String(char_uuid, variant_level=1),
                    'Service': dbus.ObjectPath(service_path, variant_level=1),
                    'Value': byte_array(b'', variant_level=1),
                    'Notifying': dbus.Boolean(False, variant_level=1),
                    'Flags': dbus.Array(flags, signature='s', variant_level=1),
                    'Handle': dbus.UInt16(handle, variant_level=1),
                }
                uuid = char_uuid
                manager().AddObject(char_path, CHAR_IFACE, char_props, [
                    ('ReadValue', 'a{sv}', 'ay', lambda obj, options, u=uuid: self.read_value(u)),
                    ('WriteValue', 'aya{sv}', '', lambda obj, value, options, u=uuid: self.write_value(u, value)),
                    ('StartNotify', '', '', lambda obj, u=uuid: self.start_notify(u)),
                    ('StopNotify', '', '', lambda obj, u=uuid: self.stop_notify(u)),
                ])
                self.char_paths[char_uuid] = char_path
                self.object_paths.append(char_path)
                pending.append((char_path, CHAR_IFACE, char_props))
                handle += 2
                for desc_uuid, value in self.descriptors.get(char_uuid, []):
                    desc_path = f'{char_path}/desc{handle:04x}'
                    desc_props = {
                        'UUID': dbus.String(desc_uuid, variant_level=1),
                        'Characteristic': dbus.ObjectPath(char_path, variant_level=1),
                        'Value': byte_array(b'', variant_level=1),
                        'Flags': dbus.Array(['read'], signature='s', variant_level=1),
                        'Handle': dbus.UInt16(handle, variant_level=1),
                    }
                    read = (lambda obj, options, c=char_uuid, d=desc_uuid, v=value, h=handle:
                            self.read_descriptor(c, d, h, v))
                    manager().AddObject(desc_path, DESC_IFACE, desc_props, [('ReadValue', 'a{sv}', 'ay', read)])
                    self.object_paths.append(desc_path)
                    pending.append((desc_path, DESC_IFACE, desc_props))
                    handle += 1
        if announce:
            for path, iface, props in pending:
                manager().EmitSignal(OBJECT_MANAGER_IFACE, 'InterfacesAdded', 'oa{sa{sv}}',
                                     [dbus.ObjectPath(path), {iface: props}])
            return False
        return pending

    def remove_gatt(self, emit=True):
        for path in reversed(self.object_paths):
            if path in mockobject.objects:
                iface = DESC_IFACE if '/desc' in path else CHAR_IFACE if '/char' in path else SERVICE_IFACE
                manager().RemoveObject(path)
                if emit:
                    manager().EmitSignal(OBJECT_MANAGER_IFACE, 'InterfacesRemoved', 'oas',
                                         [dbus.ObjectPath(path), dbus.Array([iface], signature='s')])
        self.object_paths = []
        self.char_paths = {}
        self.notifying = set()

    def disconnect(self, reason, emit=True):
        '''A link going down, as on bluetoothd 5.66: a Disconnect call is answered before `ServicesResolved` and
        `Connected` false are signalled; the GATT objects stay exported and the client's notify sessions stay
        (bluetoothd writes the CCCDs again when the link is back, before ServicesResolved is signalled).
        Fault `forget_gatt`: remove the GATT objects on every disconnect (bluetoothd with `[GATT] Cache = no`).'''
        journal(f'Disconnect {self.address} {reason}')
        if not self.connected:
            if reason == 'local':
                raise dbus.exceptions.DBusException('Not Connected', name='org.bluez.Error.NotConnected')
            return
        self.connected = False
        self.resolved = False
        dev = self.device()
        if dev is not None:
            dev.props[DEVICE_IFACE]['Connected'] = dbus.Boolean(False, variant_level=1)
            dev.props[DEVICE_IFACE]['ServicesResolved'] = dbus.Boolean(False, variant_level=1)

        def announce():
            if FAULTS.get('forget_gatt') or not emit:
                self.remove_gatt(emit)
            if emit and self.device() is not None:
                emit_changed(self.device(), DEVICE_IFACE, {
                    'ServicesResolved': dbus.Boolean(False, variant_level=1),
                    'Connected': dbus.Boolean(False, variant_level=1),
                })
            return False

        if emit and reason == 'local':
            GLib.idle_add(announce)
        else:
            announce()

    def pair(self):
        journal('Pair ' + self.address)
        emit_changed(self.device(), DEVICE_IFACE, {
            'Paired': dbus.Boolean(True, variant_level=1), 'Bonded': dbus.Boolean(True, variant_level=1)})

    def vanish(self):
        journal('vanish ' + self.address)
        self.connected = False
        self.remove_gatt(True)
        if self.device() is not None:
            manager().RemoveObject(self.path)
            manager().EmitSignal(OBJECT_MANAGER_IFACE, 'InterfacesRemoved', 'oas',
                                 [dbus.ObjectPath(self.path), dbus.Array([DEVICE_IFACE], signature='s')])
        self.last_advert_time = time.monotonic()  # come back on the next re-advertisement

    # -- GATT

    def read_value(self, uuid):
        journal(f'ReadValue {self.address} {uuid[4:8]}')
        return byte_array(self.reads.get(uuid, b''))

    def read_descriptor(self, char_uuid, desc_uuid, handle, value):
        journal(f'ReadDescriptor {self.address} {char_uuid[4:8]} {desc_uuid[4:8]} {handle:04x}')
        return byte_array(value)

    def write_value(self, uuid, value):
        journal(f'WriteValue {self.address} {uuid[4:8]} {bytes(value).hex()}')
        meter = getattr(self, 'meter', None)
        if meter is not None and uuid == full_uuid('2A52'):
            meter.request(bytes(value))
        scale = getattr(self, 'eufy', None)
        if scale is not None and uuid == full_uuid('FFF1'):
            scale.segment(bytes(value))
        ring = getattr(self, 'ring', None)
        if ring is not None and uuid == VIATOM_WRITE:
            ring.request(bytes(value))

    def start_notify(self, uuid):
        journal(f'StartNotify {self.address} {uuid[4:8]} match={"yes" if client_matches_properties() else "no"}')
        path = self.char_paths[uuid]
        self.notifying.add(uuid)
        emit_changed(mockobject.objects[path], CHAR_IFACE, {'Notifying': dbus.Boolean(True, variant_level=1)})
        if FAULTS.get('notify_in_start_notify'):
            # The peripheral answers the CCCD write with a measurement at once: before our reply goes out.
            self.step_notifications(limit=1)

    def stop_notify(self, uuid):
        journal(f'StopNotify {self.address} {uuid[4:8]}')
        self.notifying.discard(uuid)
        path = self.char_paths.get(uuid)
        if path:
            emit_changed(mockobject.objects[path], CHAR_IFACE, {'Notifying': dbus.Boolean(False, variant_level=1)})

    def notify(self, uuid, data):
        path = self.char_paths.get(uuid)
        if not path or uuid not in self.notifying or not self.connected:
            return False
        emit_changed(mockobject.objects[path], CHAR_IFACE, {'Value': byte_array(data, variant_level=1)})
        NOTIFY_TIMES.append(time.time())
        self.delivered += 1
        STATE['notifications'] += 1
        journal(f'notify {self.address} {uuid[4:8]}')
        self.after_notification()
        return True

    def after_notification(self):
        for fault, action in (('disconnect_after', self.fault_disconnect), ('vanish_after', self.vanish)):
            spec = FAULTS.get(fault, '')
            if '=' in spec and fault not in self.faults_fired:
                address, count = spec.split('=')
                if address.upper() == self.address and self.delivered >= int(count):
                    self.faults_fired.add(fault)
                    action()
        spec = FAULTS.get('restart_after', '')
        if spec and 'restart' not in STATE and STATE['notifications'] >= int(spec):
            STATE['restart'] = True
            restart_bluetoothd(300)

    def fault_disconnect(self):
        self.disconnect('remote')

    # -- playback

    def play(self, events, speed):
        self.events.extend(events)
        self.speed = speed
        if self.done:
            self.done = False
            GLib.timeout_add(1, self.step)

    def delay_ms(self, index):
        if self.speed <= 0 or index + 1 >= len(self.events):
            return 1
        dt = self.events[index + 1]['t'] - self.events[index]['t']
        return max(1, int(dt * 1000 / self.speed))

    def step(self):
        if STATE.get('paused'):
            GLib.timeout_add(50, self.step)
            return False
        while self.position < len(self.events):
            event = self.events[self.position]
            kind = event.get('kind')
            if kind == 'advertisement':
                self.advertise(event)
                self.position += 1
                GLib.timeout_add(self.delay_ms(self.position - 1), self.step)
                return False
            if kind in ('notification', 'indication'):
                if not self.step_notifications(limit=1):
                    self.readvertise_if_idle()
                    GLib.timeout_add(20, self.step)
                    return False
                GLib.timeout_add(self.delay_ms(self.position - 1), self.step)
                return False
            if kind == 'disconnected':
                if self.connected:
                    self.disconnect('remote')
                self.position += 1
                continue
            # connected / services / read: driven by the client.
            self.position += 1
        self.done = True
        return False

    def step_notifications(self, limit):
        '''Emits up to `limit` pending notifications the client has subscribed to; returns how many.'''
        sent = 0
        while sent < limit and self.position < len(self.events):
            event = self.events[self.position]
            if event.get('kind') not in ('notification', 'indication'):
                break
            uuid = full_uuid(event['characteristic'])
            if not self.connected or not self.resolved or uuid not in self.notifying:
                break
            self.position += 1
            self.notify(uuid, bytes.fromhex(event['value']))
            sent += 1
        return sent


class GlucoseMeter:
    '''The Record Access Control Point of a Glucose Service meter (Glucose Profile 1.0 §4.9): report stored
    records (op 01) and number of stored records (op 04) with the operators all (01), >= sequence number
    (03, filter type 01) and last record (06); delete (op 02) is journalled and performed, so a test can see that
    the bridge never asks for it. Records are notified on 2A18 (and their contexts on 2A34), then the response
    code is indicated on 2A52.

    Faults: `racp_in_progress` = N refuses the first N requests with ATT error 0x80 "procedure already in
    progress"; `racp_silent` = 1 never answers; `racp_drop_after` = N drops the link after the N-th record of
    a download (once); `racp_stall_after` = N stops sending after the N-th record of a download (once), keeping
    the link and never indicating the response code.'''

    def __init__(self, peripheral, records):
        self.peripheral = peripheral
        self.records = records  # [{'seq': int, 'value': hex, 'context': hex or absent}]
        self.refused = 0
        self.sent_in_download = 0
        self.dropped = False
        self.stalled = False

    def indicate(self, data):
        self.peripheral.notify(full_uuid('2A52'), data)

    def selected(self, request):
        operator = request[1] if len(request) > 1 else 0
        if operator == 0x01:
            return list(self.records)
        if operator == 0x06:
            return self.records[-1:]
        if operator == 0x03 and len(request) >= 5 and request[2] == 0x01:
            low = request[3] | request[4] << 8
            return [r for r in self.records if r['seq'] >= low]
        return None

    def request(self, request):
        if self.refused < int(FAULTS.get('racp_in_progress', 0)):
            self.refused += 1
            journal(f'RACP refused {self.peripheral.address} {request.hex()}')
            raise dbus.exceptions.DBusException('Operation failed with ATT error: 0x80', name='org.bluez.Error.Failed')
        if FAULTS.get('racp_silent'):
            journal(f'RACP silent {self.peripheral.address} {request.hex()}')
            return
        op = request[0] if request else 0
        records = self.selected(request)
        if records is None:
            GLib.timeout_add(5, lambda: self.indicate(bytes([0x06, 0x00, op, 0x04])) and False)
            return
        if op == 0x04:
            count = len(records)
            GLib.timeout_add(5, lambda: self.indicate(bytes([0x05, 0x00, count & 0xFF, count >> 8])) and False)
            return
        if op == 0x02:
            journal(f'RACP delete {self.peripheral.address}')
            kept = [r for r in self.records if r not in records]
            self.records = kept
            GLib.timeout_add(5, lambda: self.indicate(bytes([0x06, 0x00, op, 0x01])) and False)
            return
        if op != 0x01:
            GLib.timeout_add(5, lambda: self.indicate(bytes([0x06, 0x00, op, 0x02])) and False)
            return
        queue = []
        for record in records:
            queue.append(('2A18', bytes.fromhex(record['value'])))
            if record.get('context'):
                queue.append(('2A34', bytes.fromhex(record['context'])))
        result = 0x01 if records else 0x06
        self.sent_in_download = 0

        def tick():
            if not self.peripheral.connected:
                return False
            if queue:
                uuid, data = queue.pop(0)
                self.peripheral.notify(full_uuid(uuid), data)
                if uuid == '2A18':
                    self.sent_in_download += 1
                    limit = int(FAULTS.get('racp_drop_after', 0))
                    if limit and not self.dropped and self.sent_in_download >= limit:
                        self.dropped = True
                        self.peripheral.disconnect('remote')
                        return False
                    stall = int(FAULTS.get('racp_stall_after', 0))
                    if stall and not self.stalled and self.sent_in_download >= stall:
                        self.stalled = True
                        journal(f'RACP stalled {self.peripheral.address} after {self.sent_in_download}')
                        return False
                return True
            self.indicate(bytes([0x06, 0x00, 0x01, result]))
            return False

        GLib.timeout_add(5, tick)


@dbus.service.method(MOCK_IFACE, in_signature='sss', out_signature='s')
def AddGlucoseMeter(self, adapter, address, records_json):
    layout = [(full_uuid('1808'), [(full_uuid('2A18'), ['notify']), (full_uuid('2A34'), ['notify']),
                                   (full_uuid('2A51'), ['read']), (full_uuid('2A52'), ['write', 'indicate'])])]
    peripheral = Peripheral(adapter, address, 'Meter', layout, {full_uuid('2A51'): bytes([0x00, 0x00])})
    peripheral.meter = GlucoseMeter(peripheral, json.loads(records_json))
    PERIPHERALS[peripheral.address] = peripheral
    return peripheral.path


class EufyP2Scale:
    '''A Eufy P2 / P2 Pro scale's side of its handshake (bdr99/eufylife-ble-client, ble-scale-sync eufy-p2.ts),
    written independently of the bridge's Swift: C0 (the client's id, AES-128-CBC under MD5 of the address, IV 16
    ASCII '0', base64, 15-byte segments with an XOR) is answered with C1 (the scale's id); C2 must decrypt to
    "<client id>_<scale id>", then C3 01 00 01 00 and the weighings on FFF2 (a live frame, then the final one).

    `key_address` makes the scale use another address's key (a wrong key from the bridge's side), `corrupt_c1`
    flips the XOR of its first C1 segment, `c3_status` refuses the C2 with that status.'''

    IV = b'0' * 16

    def __init__(self, peripheral, spec):
        self.peripheral = peripheral
        self.spec = spec
        key_address = spec.get('key_address', peripheral.address)
        self.key = hashlib.md5(key_address.replace(':', '').upper().encode()).digest()
        self.scale_id = spec.get('scale_id', 'T9148-SIM-0001')
        self.segments = {}
        self.client_id = None

    def encrypt(self, text):
        padder = padding.PKCS7(128).padder()
        data = padder.update(text.encode()) + padder.finalize()
        encryptor = Cipher(algorithms.AES(self.key), modes.CBC(self.IV)).encryptor()
        return base64.b64encode(encryptor.update(data) + encryptor.finalize())

    def decrypt(self, message):
        try:
            decryptor = Cipher(algorithms.AES(self.key), modes.CBC(self.IV)).decryptor()
            data = decryptor.update(base64.b64decode(message)) + decryptor.finalize()
            unpadder = padding.PKCS7(128).unpadder()
            return (unpadder.update(data) + unpadder.finalize()).decode()
        except (ValueError, UnicodeDecodeError):
            return None

    @staticmethod
    def frames(prefix, message):
        count = max(1, (len(message) + 14) // 15)
        out = []
        for index in range(count):
            body = bytes([prefix, count, index, len(message)]) + message[index * 15:(index + 1) * 15]
            out.append(body + bytes([functools.reduce(lambda a, b: a ^ b, body, 0)]))
        return out

    def answer(self, items):
        '''Notifies `items` 20 ms apart: bytes go on FFF4, (uuid, bytes) pairs on that characteristic.'''
        queue = list(items)

        def tick():
            if queue and self.peripheral.connected:
                item = queue.pop(0)
                uuid, data = item if isinstance(item, tuple) else ('FFF4', item)
                self.peripheral.notify(full_uuid(uuid), data)
                return bool(queue)
            return False

        GLib.timeout_add(20, tick)

    def segment(self, frame):
        if len(frame) < 5 or functools.reduce(lambda a, b: a ^ b, frame[:-1], 0) != frame[-1]:
            journal(f'eufy bad segment {self.peripheral.address} {frame.hex()}')
            return
        prefix, count, index = frame[0], frame[1], frame[2]
        parts = self.segments.setdefault(prefix, [])
        if index == 0:
            parts.clear()
        parts.append(frame[4:-1])
        if index + 1 < count:
            return
        message = b''.join(parts)
        parts.clear()
        text = self.decrypt(message)
        if prefix == 0xC0:
            self.client_id = text
            journal(f'eufy C0 {self.peripheral.address} client={text}')
            c1 = self.frames(0xC1, self.encrypt(self.scale_id))
            if self.spec.get('corrupt_c1'):
                c1[0] = c1[0][:-1] + bytes([c1[0][-1] ^ 0xFF])
            self.answer(c1)
        elif prefix == 0xC2:
            accepted = text is not None and text == f'{self.client_id}_{self.scale_id}'
            status = int(self.spec.get('c3_status', 0)) if accepted else 1
            journal(f'eufy C2 {self.peripheral.address} accepted={accepted} status={status}')
            body = bytes([0xC3, 0x01, 0x00, 0x01, status])
            frames = [body + bytes([functools.reduce(lambda a, b: a ^ b, body, 0)])]
            if status == 0:
                for kg, impedance in self.spec.get('weighings', []):
                    raw = round(kg * 100)
                    # Shaped like a T9149's frames in ble-scale-sync issue #289: CF 0E 00 CF, the weight at 6, bytes
                    # 8-10 (no usable impedance), byte 12 = 01 while live, byte 15 the XOR of bytes 2-14.
                    live = bytearray(16)
                    live[0:4], live[6], live[7], live[12] = b'\xcf\x0e\x00\xcf', (raw - 50) & 0xFF, (raw - 50) >> 8, 0x01
                    final = bytearray(16)
                    final[0:4], final[6], final[7] = b'\xcf\x0e\x00\xcf', raw & 0xFF, raw >> 8
                    final[8], final[9], final[10] = impedance & 0xFF, (impedance >> 8) & 0xFF, impedance >> 16
                    for frame in (live, final):
                        frame[15] = functools.reduce(lambda a, b: a ^ b, frame[2:15], 0)
                    frames += [('FFF2', bytes(live)), ('FFF2', bytes(final))]
            self.answer(frames)


@dbus.service.method(MOCK_IFACE, in_signature='sss', out_signature='s')
def AddEufyP2Scale(self, adapter, address, spec_json):
    layout = [(full_uuid('FFF0'), [(full_uuid('FFF1'), ['write', 'write-without-response']),
                                   (full_uuid('FFF2'), ['notify']), (full_uuid('FFF4'), ['notify'])])]
    peripheral = Peripheral(adapter, address, 'eufy T9148', layout, {})
    peripheral.eufy = EufyP2Scale(peripheral, json.loads(spec_json))
    PERIPHERALS[peripheral.address] = peripheral
    return peripheral.path


VIATOM_SERVICE = '14839ac4-7d7e-415c-9a42-167340cf2339'
VIATOM_WRITE = '8b00ace7-eb0b-49b0-bbe9-9aee0a26e1a3'
VIATOM_NOTIFY = '0734594a-a8e7-4b1a-a6b1-cd5243059a57'


def viatom_crc8(data):
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


class ViatomRing:
    '''A Wellue O2Ring on its vendor service, as MackeyStingray/o2r (e8ad57f9) documents the protocol: `AA` requests
    (command, its complement, block, length, data, CRC-8) answered by `55` responses in 20-byte notifications:
    information (0x14, JSON with FileList and CurTIME), file open (0x03, the size), read (0x04, one block of
    `block_size` bytes), close (0x05), live values (0x17). It has no command that deletes; every request is
    journalled as `Viatom <address> <command hex> <block>`.

    Faults: `viatom_corrupt` = N flips a bit of the N-th answer (once); `viatom_drop_after_reads` = N drops the link
    after the N-th file-read answer (once).'''

    def __init__(self, peripheral, files, block_size):
        self.peripheral = peripheral
        self.files = files  # [{'name': str, 'hex': str}]
        self.block_size = block_size
        self.open = None
        self.answers = 0
        self.reads = 0
        self.dropped = False

    def request(self, request):
        if len(request) < 8 or request[0] != 0xAA or request[1] ^ request[2] != 0xFF:
            return
        command, block = request[1], request[3] | request[4] << 8
        length = request[5] | request[6] << 8
        data = request[7:7 + length]
        journal(f'Viatom {self.peripheral.address} {command:02x} {block}')
        status, reply = 0, b''
        if command == 0x14:
            names = ','.join(f['name'] for f in self.files)
            text = '{"Model":"1652","CurTIME":"2026-11-28,07:00:00","FileList":"%s,"}' % names
            reply = text.encode() + bytes(4)
        elif command == 0x03:
            name = data.split(b'\0')[0].decode()
            found = [f for f in self.files if f['name'] == name]
            if found:
                self.open = bytes.fromhex(found[0]['hex'])
                reply = len(self.open).to_bytes(4, 'little')
            else:
                status, reply = 1, bytes([0x09, 0, 0, 0])
        elif command == 0x04:
            self.reads += 1
            content = self.open or b''
            reply = content[block * self.block_size:(block + 1) * self.block_size]
        elif command == 0x05:
            self.open = None
        elif command == 0x17:
            reply = bytes([98, 61, 0, 0, 0, 0, 0, 80, 0, 2, 10, 1, 0])
        else:
            status, reply = 1, bytes([0x0B, 0, 0, 0])
        packet = bytearray([0x55, status, status ^ 0xFF, 0, 0, len(reply) & 0xFF, len(reply) >> 8]) + reply
        packet.append(viatom_crc8(packet))
        self.answers += 1
        if self.answers == int(FAULTS.get('viatom_corrupt', 0)) and len(packet) > 8:
            packet[7] ^= 0x01
        pieces = [bytes(packet[i:i + 20]) for i in range(0, len(packet), 20)]
        drop = (command == 0x04 and not self.dropped
                and self.reads == int(FAULTS.get('viatom_drop_after_reads', 0)))

        def tick():
            if not self.peripheral.connected:
                return False
            if pieces:
                self.peripheral.notify(VIATOM_NOTIFY, pieces.pop(0))
                return True
            if drop:
                self.dropped = True
                self.peripheral.disconnect('remote')
            return False

        GLib.timeout_add(5, tick)


@dbus.service.method(MOCK_IFACE, in_signature='sssu', out_signature='s')
def AddViatomRing(self, adapter, address, files_json, block_size):
    layout = [(VIATOM_SERVICE, [(VIATOM_WRITE, ['write', 'write-without-response']), (VIATOM_NOTIFY, ['notify'])])]
    peripheral = Peripheral(adapter, address, 'O2Ring 2345', layout, {})
    peripheral.ring = ViatomRing(peripheral, json.loads(files_json), block_size)
    PERIPHERALS[peripheral.address] = peripheral
    return peripheral.path


@dbus.service.method(MOCK_IFACE, in_signature='ss', out_signature='')
def AddViatomFiles(self, address, files_json):
    PERIPHERALS[address.upper()].ring.files.extend(json.loads(files_json))


@dbus.service.method(MOCK_IFACE, in_signature='ss', out_signature='')
def AddRecords(self, address, records_json):
    PERIPHERALS[address.upper()].meter.records.extend(json.loads(records_json))


@dbus.service.method(MOCK_IFACE, in_signature='ss', out_signature='')
def ReplaceRecords(self, address, records_json):
    PERIPHERALS[address.upper()].meter.records = json.loads(records_json)


@dbus.service.method(MOCK_IFACE, in_signature='s', out_signature='')
def DropLink(self, address):
    PERIPHERALS[address.upper()].disconnect('remote')


def client_matches_properties():
    '''Whether some client other than us has a PropertiesChanged match covering /org/bluez.'''
    try:
        bus = manager().connection
        driver = bus.get_object('org.freedesktop.DBus', '/org/freedesktop/DBus')
        rules = driver.GetAllMatchRules(dbus_interface='org.freedesktop.DBus.Debug.Stats')
        own = bus.get_unique_name()
        for owner, owner_rules in rules.items():
            if owner == own:
                continue
            for rule in owner_rules:
                if 'PropertiesChanged' in rule and ("path_namespace='/org/bluez'" in rule or 'path' not in rule):
                    return True
    except dbus.exceptions.DBusException:
        return False
    return False


def layout_from_recording(events):
    services = {}
    flags = {}
    reads = {}
    for event in events:
        kind = event.get('kind')
        if kind == 'services':
            for service, chars in event.get('services', {}).items():
                services.setdefault(full_uuid(service), [])
                for char in chars:
                    if full_uuid(char) not in services[full_uuid(service)]:
                        services[full_uuid(service)].append(full_uuid(char))
        elif kind in ('notification', 'indication'):
            flags.setdefault(full_uuid(event['characteristic']), set()).add('notify' if kind == 'notification' else 'indicate')
        elif kind == 'read':
            reads.setdefault(full_uuid(event['characteristic']), bytes.fromhex(event['value']))
            flags.setdefault(full_uuid(event['characteristic']), set()).add('read')
    layout = []
    for service, chars in services.items():
        layout.append((service, [(c, sorted(flags.get(c, {'read'}))) for c in chars]))
    return layout, reads


def parse_layout(spec):
    layout = []
    for service, chars in spec.get('services', {}).items():
        layout.append((full_uuid(service), [(full_uuid(c[0]), c[1].split(',')) for c in chars]))
    reads = {full_uuid(k): bytes.fromhex(v) for k, v in spec.get('reads', {}).items()}
    return layout, reads


def parse_descriptors(spec):
    return {full_uuid(k): [(full_uuid(d[0]), bytes.fromhex(d[1])) for d in v]
            for k, v in spec.get('descriptors', {}).items()}


@dbus.service.method(MOCK_IFACE, in_signature='sss', out_signature='s')
def AddPeripheral(self, adapter, address, spec_json):
    spec = json.loads(spec_json)
    layout, reads = parse_layout(spec)
    peripheral = Peripheral(adapter, address, spec.get('name'), layout, reads, parse_descriptors(spec))
    PERIPHERALS[peripheral.address] = peripheral
    return peripheral.path


@dbus.service.method(MOCK_IFACE, in_signature='ssd', out_signature='as')
def Play(self, adapter, path, speed):
    events = []
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f):
            line = line.strip()
            if not line:
                continue
            obj = json.loads(line)
            if number == 0 and obj.get('format'):
                continue
            if 'kind' in obj and 'device' in obj:
                events.append(obj)
    by_device = {}
    for event in events:
        by_device.setdefault(event['device'].upper(), []).append(event)
    for address, device_events in by_device.items():
        if address not in PERIPHERALS:
            layout, reads = layout_from_recording(device_events)
            name = next((e.get('name') for e in device_events if e.get('name')), None)
            PERIPHERALS[address] = Peripheral(adapter, address, name, layout, reads)
        PERIPHERALS[address].play(device_events, speed)
    return sorted(by_device)


@dbus.service.method(MOCK_IFACE, in_signature='ss', out_signature='')
def Advertise(self, address, advert_json):
    PERIPHERALS[address.upper()].advertise(json.loads(advert_json))


@dbus.service.method(MOCK_IFACE, in_signature='sss', out_signature='b')
def Notify(self, address, characteristic, value_hex):
    return PERIPHERALS[address.upper()].notify(full_uuid(characteristic), bytes.fromhex(value_hex))


@dbus.service.method(MOCK_IFACE, in_signature='ssasu', out_signature='')
def NotifySeries(self, address, characteristic, values, interval_ms):
    '''Emits each hex value as a notification, one every interval_ms (the latency benchmark).'''
    peripheral = PERIPHERALS[address.upper()]
    uuid = full_uuid(characteristic)
    queue = [bytes.fromhex(v) for v in values]

    def tick():
        if queue:
            peripheral.notify(uuid, queue.pop(0))
        return bool(queue)

    GLib.timeout_add(max(1, interval_ms), tick)


@dbus.service.method(MOCK_IFACE, in_signature='ss', out_signature='')
def SetFault(self, name, value):
    FAULTS[name] = value


@dbus.service.method(MOCK_IFACE, in_signature='s', out_signature='')
def VanishDevice(self, address):
    PERIPHERALS[address.upper()].vanish()


def restart_bluetoothd(delay_ms):
    journal('bluetoothd stop')
    bus = manager().connection
    STATE['paused'] = True
    for peripheral in PERIPHERALS.values():
        if peripheral.connected:
            peripheral.disconnect('restart', emit=False)
            dev = peripheral.device()
            if dev is not None:
                dev.props[DEVICE_IFACE]['Connected'] = dbus.Boolean(False, variant_level=1)
                dev.props[DEVICE_IFACE]['ServicesResolved'] = dbus.Boolean(False, variant_level=1)
    for path, obj in list(mockobject.objects.items()):
        if ADAPTER_IFACE in obj.props:
            obj.props[ADAPTER_IFACE]['Discovering'] = dbus.Boolean(False, variant_level=1)
    bus.release_name(BUS_NAME)

    def back():
        bus.request_name(BUS_NAME, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
        journal('bluetoothd start')
        STATE['paused'] = False
        return False

    GLib.timeout_add(max(1, delay_ms), back)


@dbus.service.method(MOCK_IFACE, in_signature='u', out_signature='')
def RestartBluetoothd(self, delay_ms):
    restart_bluetoothd(delay_ms)


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='s')
def PlaybackStatus(self):
    return json.dumps({
        'done': all(p.done for p in PERIPHERALS.values()),
        'notifications': STATE['notifications'],
        'pending': sum(len(p.events) - p.position for p in PERIPHERALS.values()),
    })


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='as')
def GetJournal(self):
    return dbus.Array(JOURNAL, signature='s')


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='ad')
def NotificationTimes(self):
    return dbus.Array(NOTIFY_TIMES, signature='d')


# bluez5's other control methods stay available.
AddDevice = bluez5.AddDevice
PairDevice = bluez5.PairDevice
ConnectDevice = bluez5.ConnectDevice
DisconnectDevice = bluez5.DisconnectDevice
RemoveAdapter = bluez5.RemoveAdapter
RemoveAdapterWithDevices = bluez5.RemoveAdapterWithDevices
BlockDevice = bluez5.BlockDevice


def load(mock, parameters):
    bluez5.load(mock, parameters)
    STATE['mock'] = mock
