/// Well-known names, interfaces and paths of the BlueZ D-Bus API (`doc/org.bluez.*.rst`).
enum BlueZ {
    static let service = "org.bluez"
    static let root = "/org/bluez"

    static let adapter = "org.bluez.Adapter1"
    static let device = "org.bluez.Device1"
    static let gattService = "org.bluez.GattService1"
    static let gattCharacteristic = "org.bluez.GattCharacteristic1"
    static let gattDescriptor = "org.bluez.GattDescriptor1"
    static let agentManager = "org.bluez.AgentManager1"
    static let agent = "org.bluez.Agent1"

    static let objectManager = "org.freedesktop.DBus.ObjectManager"
    static let properties = "org.freedesktop.DBus.Properties"
    static let introspectable = "org.freedesktop.DBus.Introspectable"

    static let busService = "org.freedesktop.DBus"
    static let busPath = "/org/freedesktop/DBus"

    /// Match rules, added before `GetManagedObjects` so nothing falls between the snapshot and the signals.
    static let matchRules = [
        "type='signal',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesAdded',arg0path='/org/bluez/'",
        "type='signal',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesRemoved',arg0path='/org/bluez/'",
        "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path_namespace='/org/bluez'",
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.bluez'",
    ]
}
