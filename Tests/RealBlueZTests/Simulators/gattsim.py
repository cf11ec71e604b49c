"""A small framework for simulated Bluetooth LE health devices on the real bluetoothd.

A simulator is a GATT application plus an LE advertisement registered on one adapter (hci1, hci2) through
org.bluez.GattManager1 and org.bluez.LEAdvertisingManager1, with Device Information and Battery services.
Its behaviour is a script: a generator that yields what it waits for (`wait_subscribed`, `sleep`, ...), run on
the GLib main loop. Every value sent is logged as a JSON line (`--sent FILE`), so a test can compare what the
device said with what the bridge stored.

Only python3-dbus and python3-gi (Debian packages) are used.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time

import dbus
import dbus.exceptions
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

BLUEZ = 'org.bluez'
OBJECT_MANAGER = 'org.freedesktop.DBus.ObjectManager'
PROPERTIES = 'org.freedesktop.DBus.Properties'
ADAPTER = 'org.bluez.Adapter1'
DEVICE = 'org.bluez.Device1'
GATT_MANAGER = 'org.bluez.GattManager1'
ADVERTISING_MANAGER = 'org.bluez.LEAdvertisingManager1'
AGENT_MANAGER = 'org.bluez.AgentManager1'
SERVICE = 'org.bluez.GattService1'
CHARACTERISTIC = 'org.bluez.GattCharacteristic1'
DESCRIPTOR = 'org.bluez.GattDescriptor1'
ADVERTISEMENT = 'org.bluez.LEAdvertisement1'
AGENT = 'org.bluez.Agent1'


def uptime():
    with open('/proc/uptime') as f:
        return float(f.read().split()[0])


def full_uuid(short):
    return short.lower() if len(short) > 8 else f'0000{short.lower():0>4}-0000-1000-8000-00805f9b34fb'


def byte_array(data):
    return dbus.Array([dbus.Byte(b) for b in data], signature='y')


# ---------------------------------------------------------------------------------------------- encodings


def sfloat(mantissa, exponent):
    """IEEE-11073 16-bit SFLOAT: 4-bit exponent, 12-bit mantissa (both signed), little-endian."""
    return (((exponent & 0xF) << 12) | (mantissa & 0xFFF)).to_bytes(2, 'little')


def float32(mantissa, exponent):
    """IEEE-11073 32-bit FLOAT: 8-bit exponent, 24-bit mantissa (both signed), little-endian."""
    return (((exponent & 0xFF) << 24) | (mantissa & 0xFFFFFF)).to_bytes(4, 'little')


def date_time(moment):
    """Date Time (0x2A08): year (uint16), month, day, hours, minutes, seconds."""
    return moment.year.to_bytes(2, 'little') + bytes([moment.month, moment.day, moment.hour, moment.minute,
                                                       moment.second])


class Failed(dbus.exceptions.DBusException):
    _dbus_error_name = 'org.bluez.Error.Failed'


class NotPermitted(dbus.exceptions.DBusException):
    _dbus_error_name = 'org.bluez.Error.NotPermitted'


class InvalidArgs(dbus.exceptions.DBusException):
    _dbus_error_name = 'org.freedesktop.DBus.Error.InvalidArgs'


class Rejected(dbus.exceptions.DBusException):
    _dbus_error_name = 'org.bluez.Error.Rejected'


# ---------------------------------------------------------------------------------------------- GATT objects


class Application(dbus.service.Object):
    def __init__(self, bus, path):
        self.path = path
        self.services = []
        super().__init__(bus, path)

    @dbus.service.method(OBJECT_MANAGER, out_signature='a{oa{sa{sv}}}')
    def GetManagedObjects(self):
        objects = {}
        for service in self.services:
            objects[dbus.ObjectPath(service.path)] = service.properties()
            for characteristic in service.characteristics:
                objects[dbus.ObjectPath(characteristic.path)] = characteristic.properties()
                for descriptor in characteristic.descriptors:
                    objects[dbus.ObjectPath(descriptor.path)] = descriptor.properties()
        return objects


class Service(dbus.service.Object):
    def __init__(self, simulator, index, uuid):
        self.path = f'{simulator.app.path}/service{index}'
        self.uuid = full_uuid(uuid)
        self.simulator = simulator
        self.characteristics = []
        super().__init__(simulator.bus, self.path)

    def properties(self):
        return {SERVICE: {'UUID': self.uuid, 'Primary': dbus.Boolean(True)}}

    @dbus.service.method(PROPERTIES, in_signature='s', out_signature='a{sv}')
    def GetAll(self, interface):
        if interface != SERVICE:
            raise InvalidArgs()
        return self.properties()[SERVICE]

    def add(self, uuid, flags, value=None, on_write=None):
        characteristic = Characteristic(self, len(self.characteristics), uuid, flags, value, on_write)
        self.characteristics.append(characteristic)
        return characteristic


class Characteristic(dbus.service.Object):
    """A characteristic: a read value, an optional write handler, notify/indicate through PropertiesChanged."""

    def __init__(self, service, index, uuid, flags, value, on_write):
        self.path = f'{service.path}/char{index}'
        self.uuid = full_uuid(uuid)
        self.short = uuid.upper()
        self.flags = flags
        self.value = bytes(value or b'')
        self.on_write = on_write
        self.service = service
        self.simulator = service.simulator
        self.notifying = False
        self.subscriptions = 0  # StartNotify calls since the simulator started
        self.confirmed = 0
        self.reads = 0  # ReadValue calls answered
        self.descriptors = []
        super().__init__(service.simulator.bus, self.path)

    def add_descriptor(self, uuid, value):
        """A read-only descriptor (bluetoothd serves the CCCD itself)."""
        descriptor = Descriptor(self, len(self.descriptors), uuid, value)
        self.descriptors.append(descriptor)
        return descriptor

    def properties(self):
        return {CHARACTERISTIC: {
            'Service': dbus.ObjectPath(self.service.path), 'UUID': self.uuid,
            'Flags': dbus.Array(self.flags, signature='s')}}

    @dbus.service.method(PROPERTIES, in_signature='s', out_signature='a{sv}')
    def GetAll(self, interface):
        if interface != CHARACTERISTIC:
            raise InvalidArgs()
        return self.properties()[CHARACTERISTIC]

    @dbus.service.signal(PROPERTIES, signature='sa{sv}as')
    def PropertiesChanged(self, interface, changed, invalidated):
        pass

    @dbus.service.method(CHARACTERISTIC, in_signature='a{sv}', out_signature='ay')
    def ReadValue(self, options):
        self.simulator.check_security(self)
        self.simulator.log(f'read {self.short}')
        self.reads += 1
        self.simulator.wake()
        offset = int(options.get('offset', 0))
        return byte_array(self.value[offset:])

    @dbus.service.method(CHARACTERISTIC, in_signature='aya{sv}')
    def WriteValue(self, value, options):
        data = bytes(value)
        self.simulator.log(f'write {self.short} {data.hex()}')
        self.simulator.record('write', self.short, data)
        if self.on_write is None:
            raise NotPermitted('not writable')
        self.on_write(data)

    @dbus.service.method(CHARACTERISTIC)
    def StartNotify(self):
        if self.notifying:
            return
        self.notifying = True
        self.subscriptions += 1
        self.simulator.log(f'subscribed {self.short}')
        self.simulator.wake()

    @dbus.service.method(CHARACTERISTIC)
    def StopNotify(self):
        if self.notifying:
            self.simulator.log(f'unsubscribed {self.short}')
        self.notifying = False
        self.simulator.wake()

    @dbus.service.method(CHARACTERISTIC)
    def Confirm(self):
        self.confirmed += 1
        self.simulator.wake()

    def send(self, data, kind=None):
        """Notifies or indicates `data` (bluetoothd chooses by the CCCD the client wrote)."""
        data = bytes(data)
        self.value = data
        self.PropertiesChanged(CHARACTERISTIC, {'Value': byte_array(data)}, dbus.Array([], signature='s'))
        self.simulator.record(kind or ('indication' if 'indicate' in self.flags else 'notification'), self.short, data)


class Descriptor(dbus.service.Object):
    """A read-only descriptor of a characteristic; every read is logged as `read descriptor UUID`."""

    def __init__(self, characteristic, index, uuid, value):
        self.path = f'{characteristic.path}/desc{index}'
        self.uuid = full_uuid(uuid)
        self.short = uuid.upper()
        self.value = bytes(value)
        self.characteristic = characteristic
        self.simulator = characteristic.simulator
        self.reads = 0
        super().__init__(characteristic.simulator.bus, self.path)

    def properties(self):
        return {DESCRIPTOR: {
            'Characteristic': dbus.ObjectPath(self.characteristic.path), 'UUID': self.uuid,
            'Flags': dbus.Array(['read'], signature='s')}}

    @dbus.service.method(PROPERTIES, in_signature='s', out_signature='a{sv}')
    def GetAll(self, interface):
        if interface != DESCRIPTOR:
            raise InvalidArgs()
        return self.properties()[DESCRIPTOR]

    @dbus.service.method(DESCRIPTOR, in_signature='a{sv}', out_signature='ay')
    def ReadValue(self, options):
        self.simulator.log(f'read descriptor {self.short} of {self.characteristic.short}')
        self.reads += 1
        self.simulator.record('descriptor-read', self.short, self.value)
        self.simulator.wake()
        offset = int(options.get('offset', 0))
        return byte_array(self.value[offset:])


class Advertisement(dbus.service.Object):
    def __init__(self, simulator, path, properties):
        self.path = path
        self.simulator = simulator
        self.props = properties
        super().__init__(simulator.bus, path)

    def dbus_properties(self):
        props = {'Type': self.props.get('type', 'peripheral')}
        if self.props.get('service_uuids'):
            props['ServiceUUIDs'] = dbus.Array(self.props['service_uuids'], signature='s')
        if self.props.get('name'):
            props['LocalName'] = dbus.String(self.props['name'])
        if self.props.get('service_data'):
            props['ServiceData'] = dbus.Dictionary(
                {k: byte_array(v) for k, v in self.props['service_data'].items()}, signature='sv')
        if self.props.get('manufacturer_data'):
            props['ManufacturerData'] = dbus.Dictionary(
                {dbus.UInt16(k): byte_array(v) for k, v in self.props['manufacturer_data'].items()}, signature='qv')
        if self.props.get('type', 'peripheral') == 'peripheral':
            # Without the LE General Discoverable flag a plain StartDiscovery drops the device.
            props['Discoverable'] = dbus.Boolean(True)
        return props

    @dbus.service.method(PROPERTIES, in_signature='s', out_signature='a{sv}')
    def GetAll(self, interface):
        if interface != ADVERTISEMENT:
            raise InvalidArgs()
        return self.dbus_properties()

    @dbus.service.method(ADVERTISEMENT)
    def Release(self):
        self.simulator.log('advertisement released')


class Agent(dbus.service.Object):
    """The device side of pairing. Just Works (NoInputNoOutput), or a device with a fixed passkey (KeyboardOnly:
    with the collector also entering the passkey, both sides must type the same six digits)."""

    def __init__(self, simulator, path, passkey):
        self.simulator = simulator
        self.path = path
        self.passkey = passkey
        super().__init__(simulator.bus, path)

    @property
    def capability(self):
        return 'NoInputNoOutput' if self.passkey is None else 'KeyboardOnly'

    @dbus.service.method(AGENT)
    def Release(self):
        pass

    @dbus.service.method(AGENT)
    def Cancel(self):
        self.simulator.log('agent: Cancel')

    @dbus.service.method(AGENT, in_signature='os')
    def AuthorizeService(self, device, uuid):
        self.simulator.log(f'agent: AuthorizeService {uuid}')

    @dbus.service.method(AGENT, in_signature='o')
    def RequestAuthorization(self, device):
        self.simulator.log('agent: RequestAuthorization -> yes')

    @dbus.service.method(AGENT, in_signature='ou')
    def RequestConfirmation(self, device, passkey):
        self.simulator.log(f'agent: RequestConfirmation {passkey:06d} -> yes')

    @dbus.service.method(AGENT, in_signature='o', out_signature='u')
    def RequestPasskey(self, device):
        self.simulator.log(f'agent: RequestPasskey -> {self.passkey}')
        if self.passkey is None:
            raise Rejected('no passkey')
        return dbus.UInt32(self.passkey)

    @dbus.service.method(AGENT, in_signature='o', out_signature='s')
    def RequestPinCode(self, device):
        raise Rejected('no PIN codes on LE')

    @dbus.service.method(AGENT, in_signature='ouq')
    def DisplayPasskey(self, device, passkey, entered):
        self.simulator.log(f'agent: DisplayPasskey {passkey:06d}')

    @dbus.service.method(AGENT, in_signature='os')
    def DisplayPinCode(self, device, pincode):
        pass


# ---------------------------------------------------------------------------------------------- script steps


class Sleep:
    def __init__(self, seconds):
        self.until = time.monotonic() + seconds

    def ready(self, simulator):
        return time.monotonic() >= self.until


class Until:
    def __init__(self, predicate, timeout, what):
        self.predicate = predicate
        self.deadline = time.monotonic() + timeout
        self.what = what

    def ready(self, simulator):
        if self.predicate():
            return True
        if time.monotonic() > self.deadline:
            raise TimeoutError(f'timed out waiting for {self.what}')
        return False


# ---------------------------------------------------------------------------------------------- the simulator


class Simulator:
    """One simulated device: its GATT application, advertisement, agent and script.

    bluetoothd reads the application's and the advertisement's objects back from us while their Register calls
    are pending, so every call to bluetoothd that can call us back is asynchronous; the script waits for the
    outcome. When bluetoothd restarts, the registrations are made again (a real device would simply keep
    advertising) and subscriptions start over.
    """

    def __init__(self, args, name, service_uuids=(), advertise_type='peripheral', service_data=None,
                 manufacturer_data=None):
        self.args = args
        self.name = name
        self.tag = args.tag or name
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        self.bus = dbus.SystemBus()
        self.loop = GLib.MainLoop()
        self.adapter_path = f'/org/bluez/{args.adapter}'
        root = '/carebridge/' + args.adapter
        self.app = Application(self.bus, root + '/app')
        self.advert_properties = {'type': advertise_type, 'name': name, 'service_uuids': list(service_uuids),
                                  'service_data': service_data or {}, 'manufacturer_data': manufacturer_data or {}}
        self.advert_path = root + '/advertisement'
        self.advert_generation = 0
        self.advertisement = None
        self.advertising = False
        self.want_advertising = False
        self.registered = False
        self.registration_error = None
        self.bluez_generation = 0  # bluetoothd (re)appearances seen
        self.agent = Agent(self, root + '/agent', args.passkey) if args.agent else None
        self.sent_file = open(args.sent, 'a') if args.sent else None
        self.requires_bond = False
        self.status = None
        self.script = None
        self.wait_step = None
        self.battery = None
        self.devices = {}
        self.address = None
        self.busy_retries = 0

    # -- set-up

    def standard_services(self, manufacturer='CareBridge Simulators', model='SIM-1', serial='0001',
                          firmware='1.0.0', battery=87):
        """Device Information (180A) and Battery (180F), as every simulated device has them."""
        info = self.service('180A')
        info.add('2A29', ['read'], manufacturer.encode())
        info.add('2A24', ['read'], model.encode())
        info.add('2A25', ['read'], serial.encode())
        info.add('2A26', ['read'], firmware.encode())
        self.battery = self.service('180F').add('2A19', ['read', 'notify'], bytes([battery]))

    def service(self, uuid):
        service = Service(self, len(self.app.services), uuid)
        self.app.services.append(service)
        return service

    def log(self, text):
        print(f'[{self.tag} {uptime():8.2f}] {text}', flush=True)

    def record(self, kind, characteristic, data):
        """Appends one line to --sent: what the device sent (or had written to it), with its wall-clock time."""
        if self.sent_file:
            line = {'t': round(uptime(), 3), 'wall': time.time(), 'kind': kind, 'characteristic': characteristic,
                    'value': data.hex()}
            self.sent_file.write(json.dumps(line) + '\n')
            self.sent_file.flush()

    # -- bluetoothd and our registrations

    def adapter(self, interface):
        return dbus.Interface(self.bus.get_object(BLUEZ, self.adapter_path), interface)

    def watch_bluetoothd(self):
        def owner_changed(name, old, new):
            if name != BLUEZ:
                return
            if not new:
                self.log('bluetoothd left the bus')
                self.registered = False
                self.advertising = False
                self.devices = {}
                for service in self.app.services:
                    for characteristic in service.characteristics:
                        characteristic.notifying = False
                self.wake()
            else:
                self.log('bluetoothd is back')
                GLib.timeout_add(200, self.register)

        self.bus.add_signal_receiver(owner_changed, 'NameOwnerChanged', 'org.freedesktop.DBus',
                                     'org.freedesktop.DBus', '/org/freedesktop/DBus')

    def watch_devices(self):
        """Keeps `self.devices` (Device1 properties under our adapter) current from bluetoothd's signals."""
        def added(path, interfaces):
            if str(path).startswith(self.adapter_path + '/') and DEVICE in interfaces:
                self.devices.setdefault(str(path), {}).update(interfaces[DEVICE])
                self.wake()

        def removed(path, interfaces):
            if DEVICE in interfaces:
                self.devices.pop(str(path), None)
                self.wake()

        def changed(interface, properties, invalidated, path=None):
            if interface == DEVICE and str(path) in self.devices:
                self.devices[str(path)].update(properties)
                self.wake()

        self.bus.add_signal_receiver(added, 'InterfacesAdded', OBJECT_MANAGER, BLUEZ)
        self.bus.add_signal_receiver(removed, 'InterfacesRemoved', OBJECT_MANAGER, BLUEZ)
        self.bus.add_signal_receiver(changed, 'PropertiesChanged', PROPERTIES, BLUEZ, path_keyword='path')

    def register(self):
        """Powers the adapter, names it (the GAP Device Name a collector reads), registers the agent, the GATT
        application and, if wanted, the advertisement."""
        try:
            properties = self.adapter(PROPERTIES)
            properties.Set(ADAPTER, 'Powered', dbus.Boolean(True))
            properties.Set(ADAPTER, 'Alias', dbus.String(self.name))
            self.address = str(properties.Get(ADAPTER, 'Address'))
            self.devices = {}
            objects = dbus.Interface(self.bus.get_object(BLUEZ, '/'), OBJECT_MANAGER).GetManagedObjects()
            for path, interfaces in objects.items():
                if str(path).startswith(self.adapter_path + '/') and DEVICE in interfaces:
                    self.devices[str(path)] = dict(interfaces[DEVICE])
            if self.agent:
                manager = self.agent_manager()
                try:
                    manager.RegisterAgent(self.agent.path, self.agent.capability)
                except dbus.exceptions.DBusException as error:
                    # registering again (check_registrations) when bluetoothd kept the agent
                    if error.get_dbus_name() != 'org.bluez.Error.AlreadyExists':
                        raise
                manager.RequestDefaultAgent(self.agent.path)
                self.log(f'agent {self.agent.capability} registered (bus name {self.bus.get_unique_name()})')
        except dbus.exceptions.DBusException as error:
            if error.get_dbus_name() == 'org.bluez.Error.Busy' and self.busy_retries < 120:
                # A restarted bluetoothd powers its adapters itself and answers Busy to our power change meanwhile.
                self.busy_retries += 1
                self.log(f'set-up: bluetoothd is busy ({error.get_dbus_message()}); trying again')
                GLib.timeout_add(250, self.register)
                return False
            self.registration_error = f'set-up: {error.get_dbus_name()}: {error.get_dbus_message()}'
            self.wake()
            return False
        self.bluez_generation += 1

        def application_registered():
            self.registered = True
            self.log(f'GATT application registered on {self.args.adapter}')
            if self.want_advertising:
                self.register_advertisement()
            self.wake()

        def failed(error):
            if error.get_dbus_name() == 'org.bluez.Error.AlreadyExists':
                application_registered()  # registering again (check_registrations) when bluetoothd kept it
                return
            self.registration_error = f'RegisterApplication: {error}'
            self.wake()

        if self.app.services:
            self.adapter(GATT_MANAGER).RegisterApplication(
                self.app.path, {}, reply_handler=application_registered, error_handler=failed, timeout=60)
        else:
            application_registered()
        return False

    def register_advertisement(self):
        self.advert_generation += 1
        path = f'{self.advert_path}{self.advert_generation}'
        self.advertisement = Advertisement(self, path, dict(self.advert_properties))

        def registered():
            self.advertising = True
            self.log(f'advertising as {self.advert_properties.get("name")!r} on {self.args.adapter} ({self.address})')
            if os.environ.pop('CAREBRIDGE_SIM_DROP_REGISTRATIONS', None):
                self.drop_registrations()
            self.wake()

        def failed(error):
            self.registration_error = f'RegisterAdvertisement: {error}'
            self.wake()

        self.adapter(ADVERTISING_MANAGER).RegisterAdvertisement(
            path, {}, reply_handler=registered, error_handler=failed, timeout=30)

    # -- the link

    def centrals(self):
        """Device1 objects under our adapter that are connected (the collector, seen from the device)."""
        return [(path, device) for path, device in self.devices.items() if device.get('Connected')]

    def connected(self):
        return bool(self.centrals())

    def bonded(self):
        return any(bool(d.get('Paired')) for _, d in self.centrals())

    def check_security(self, characteristic):
        if self.requires_bond and characteristic.service.uuid != full_uuid('180A') and not self.bonded():
            raise NotPermitted('bonding required')

    def drop_link(self):
        """Disconnects the collector from our side (the collector sees a remote disconnect)."""
        for path, _ in self.centrals():
            self.log('dropping the link')
            dbus.Interface(self.bus.get_object(BLUEZ, path), DEVICE).Disconnect(
                reply_handler=lambda: None,
                error_handler=lambda error: self.log(f'Disconnect: {error.get_dbus_name()}'), timeout=30)

    # -- advertising

    def start_advertising(self, **changes):
        """Advertises (again), with changed properties (e.g. service_data); yield the result to wait for it."""
        self.advert_properties.update(changes)
        self.want_advertising = True
        if self.advertising:
            self.stop_advertising()
        self.advertising = False
        if self.registered:
            self.register_advertisement()
        return Until(lambda: self.advertising, 60, 'RegisterAdvertisement')

    def stop_advertising(self):
        self.want_advertising = False
        if not self.advertising:
            return
        advertisement = self.advertisement
        self.advertising = False

        def released(*error):
            advertisement.remove_from_connection()
            self.log('stopped advertising' + (f' ({error[0].get_dbus_name()})' if error else ''))

        self.adapter(ADVERTISING_MANAGER).UnregisterAdvertisement(
            advertisement.path, reply_handler=released, error_handler=released, timeout=30)

    def disappear(self):
        """The device goes away: stops advertising and drops the link."""
        self.stop_advertising()
        self.drop_link()

    def leave(self):
        """The device goes away and waits until the link is down (`yield from sim.leave()`)."""
        self.disappear()
        yield self.wait_disconnected()

    # -- script primitives (yield them)

    def sleep(self, seconds):
        return Sleep(seconds)

    def until(self, predicate, timeout=120, what='a condition'):
        return Until(predicate, timeout, what)

    def wait_connected(self, timeout=120):
        return Until(self.connected, timeout, 'a connection')

    def wait_disconnected(self, timeout=60):
        return Until(lambda: not self.connected(), timeout, 'the link to go down')

    def wait_subscribed(self, characteristic, after=0, timeout=120):
        """Waits until the collector subscribed (its `after`+1-th subscription since start)."""
        return Until(lambda: characteristic.notifying and characteristic.subscriptions > after, timeout,
                     f'a subscription to {characteristic.short}')

    def wait_bonded(self, timeout=120):
        return Until(self.bonded, timeout, 'bonding')

    def wait_confirmed(self, characteristic, count, timeout=60):
        return Until(lambda: characteristic.confirmed >= count, timeout,
                     f'{count} confirmations of {characteristic.short}')

    def mark(self, text):
        """A line the scenario script waits for (in our log)."""
        self.log('MARK ' + text)

    # -- running

    def wake(self):
        GLib.idle_add(self.step)

    def step(self):
        if self.script is None:
            return False
        try:
            if self.registration_error:
                raise RuntimeError(self.registration_error)
            if self.wait_step is not None and not self.wait_step.ready(self):
                return False
            self.wait_step = next(self.script)
        except StopIteration:
            self.log('script done')
            self.script = None
            self.finish(0)
            return False
        except Exception as error:  # noqa: BLE001 - a failed script ends the simulator with its reason
            self.log(f'script failed: {error!r}; {self.bus_state()}')
            self.script = None
            self.finish(1)
            return False
        GLib.idle_add(self.step)
        return False

    def tick(self):
        self.step()
        return self.script is not None

    def check_registrations(self):
        """Every few seconds while advertising and unconnected: does the controller still hold an advertisement?

        Under a starved TCG guest, bluetoothd has been seen to run its "client left the bus" clean-up for a
        simulator right after registering it (its log: "Agent :1.N disconnected", then the application and the
        advertisement removed and the controller's advertising instance with them) while the bus still had our
        name and our connection was up, so no collector could ever find the device. A real device keeps
        advertising: when the controller (asked through btmgmt, beside bluetoothd) has no instance left, register
        everything again, and say so."""
        if self.agent and self.registered:
            # bluetoothd answers AlreadyExists while it holds our agent; one it had dropped (the same fault, seen
            # during a connection too) is registered again and made the default, or pairing asks another agent.
            def agent_back():
                self.log('bluetoothd had dropped our agent; registered it again')
                self.agent_manager().RequestDefaultAgent(self.agent.path, reply_handler=lambda: None,
                                                         error_handler=lambda error: None)

            self.agent_manager().RegisterAgent(self.agent.path, self.agent.capability, reply_handler=agent_back,
                                               error_handler=lambda error: None, timeout=20)
        if not (self.registered and self.advertising and self.want_advertising) or self.connected():
            return True
        if self.controller_instances() == 0 and not self.connected():
            self.log('the controller no longer advertises us (bluetoothd dropped our registrations); '
                     'registering again')
            self.registered = False
            self.advertising = False
            self.register()
        return True

    def drop_registrations(self):
        """The fault check_registrations answers, made on purpose to check it by hand (CAREBRIDGE_SIM_DROP_REGISTRATIONS=1
        in CAREBRIDGE_VM_ENV, once per simulator): bluetoothd forgets our advertisement, application and agent while we
        still believe them registered."""
        self.log('dropping our registrations behind our own back (CAREBRIDGE_SIM_DROP_REGISTRATIONS)')
        self.adapter(ADVERTISING_MANAGER).UnregisterAdvertisement(self.advertisement.path)
        self.adapter(GATT_MANAGER).UnregisterApplication(self.app.path)
        if self.agent:
            self.agent_manager().UnregisterAgent(self.agent.path)

    def agent_manager(self):
        return dbus.Interface(self.bus.get_object(BLUEZ, '/org/bluez'), AGENT_MANAGER)

    def controller_instances(self):
        """The advertising instances our controller holds (`btmgmt advinfo`, beside bluetoothd), or None.

        btmgmt quits at the end of its input before the controller answers, and ours is /dev/null: its input is a
        pipe we keep open until it has answered (or is killed after 20 s)."""
        try:
            btmgmt = subprocess.Popen(['btmgmt', '--index', self.args.adapter.removeprefix('hci'), 'advinfo'],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      text=True)
        except OSError as error:
            self.log(f'btmgmt advinfo: {error}')
            return None
        timer = threading.Timer(20, btmgmt.kill)
        timer.start()
        output = btmgmt.stdout.read()
        btmgmt.wait()
        timer.cancel()
        btmgmt.stdin.close()
        found = re.search(r'Instances list with (\d+) item', output)
        if not found:
            self.log(f'btmgmt advinfo answered {btmgmt.returncode}: {output.strip()[-200:]!r}')
        return int(found.group(1)) if found else None

    def bus_state(self):
        """What the bus and bluetoothd say of us, for a failed script's last line."""
        try:
            name = self.bus.get_unique_name()
            bus = dbus.Interface(self.bus.get_object('org.freedesktop.DBus', '/org/freedesktop/DBus'),
                                 'org.freedesktop.DBus')
            return (f'bus name {name}: connected {self.bus.get_is_connected()}, owned {bool(bus.NameHasOwner(name))}; '
                    f'advertising instances on {self.args.adapter}: {self.controller_instances()}')
        except dbus.exceptions.DBusException as error:
            return f'bus state unknown: {error.get_dbus_name()}'

    def lost_bus(self, _connection):
        """The system bus closed our connection: bluetoothd has dropped our application, advertisement and agent,
        and nothing we do reaches it any more, so say so and end (seen once in a CI run: the heart-rate strap's
        connection closed right after its advertisement was registered, and the bridge then heard nothing)."""
        self.log('lost the D-Bus connection to the system bus; bluetoothd has dropped our registrations')
        self.status = 3
        self.loop.quit()

    def finish(self, status):
        self.status = status
        if self.args.linger and status == 0:
            return  # keep serving until stopped (the scenario stops us)
        self.loop.quit()

    def run(self, script):
        """Registers everything, runs `script` (a generator function taking the simulator) and the main loop."""
        def with_registration(sim):
            yield Until(lambda: self.registered, 90, 'the GATT application to be registered')
            yield from script(sim)

        self.bus.call_on_disconnection(self.lost_bus)
        self.watch_bluetoothd()
        self.watch_devices()
        self.register()
        self.script = with_registration(self)
        GLib.timeout_add(20, self.tick)
        GLib.timeout_add_seconds(5, self.check_registrations)
        GLib.idle_add(self.step)
        self.loop.run()
        if self.sent_file:
            self.sent_file.close()
        return self.status or 0


def arguments(description, extra=None):
    """The common command line of every simulator."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument('--adapter', default='hci1')
    parser.add_argument('--tag', help='log prefix')
    parser.add_argument('--sent', help='append every value sent as a JSON line to this file')
    parser.add_argument('--no-agent', dest='agent', action='store_false', help='register no device-side agent')
    parser.add_argument('--passkey', type=int, help='fixed passkey the device expects (else Just Works)')
    parser.add_argument('--linger', action='store_true', help='keep serving after the script is done')
    if extra:
        extra(parser)
    return parser.parse_args()


def main(run):
    try:
        sys.exit(run())
    except dbus.exceptions.DBusException as error:
        print(f'simulator failed: {error.get_dbus_name()}: {error.get_dbus_message()}', flush=True)
        sys.exit(1)
