/// A copy of bluetoothd's object tree: path → interface → property → value.
///
/// Built from `GetManagedObjects` and kept current from `InterfacesAdded`, `InterfacesRemoved` and
/// `PropertiesChanged`. Pure value type: the client applies messages to it in receive order.
public struct ObjectMirror: Sendable {
    public typealias Properties = [String: DBusValue]

    public private(set) var objects: [String: [String: Properties]] = [:]
    /// Sequence number of the snapshot; signals received before it are already reflected in it.
    public private(set) var snapshotSequence: UInt64 = 0

    public init() {}

    /// Replaces everything with a `GetManagedObjects` reply (`a{oa{sa{sv}}}`).
    public mutating func load(snapshot reply: DBusMessage) {
        objects = [:]
        snapshotSequence = reply.sequence
        for entry in reply.arguments.first?.entries ?? [] {
            guard let path = entry.key.string else { continue }
            objects[path] = Self.interfaces(entry.value)
        }
    }

    /// Empties the mirror (bluetoothd went away).
    public mutating func clear() {
        objects = [:]
    }

    /// What a signal changed.
    public enum Change: Sendable, Hashable {
        case added(path: String, interfaces: [String])
        case removed(path: String, interfaces: [String])
        case properties(path: String, interface: String, changed: Properties, invalidated: [String])
        case ignored
    }

    /// Applies one signal; signals older than the snapshot are ignored.
    @discardableResult
    public mutating func apply(_ signal: DBusMessage) -> Change {
        guard signal.sequence > snapshotSequence else { return .ignored }
        switch (signal.interface, signal.member) {
        case (BlueZ.objectManager, "InterfacesAdded"):
            guard signal.arguments.count >= 2, let path = signal.arguments[0].string else { return .ignored }
            let added = Self.interfaces(signal.arguments[1])
            for (interface, properties) in added {
                objects[path, default: [:]][interface, default: [:]].merge(properties) { $1 }
            }
            return .added(path: path, interfaces: added.keys.sorted())
        case (BlueZ.objectManager, "InterfacesRemoved"):
            guard signal.arguments.count >= 2, let path = signal.arguments[0].string else { return .ignored }
            let interfaces = signal.arguments[1].stringArray ?? []
            for interface in interfaces { objects[path]?[interface] = nil }
            if objects[path]?.isEmpty ?? false { objects[path] = nil }
            // bluetoothd drops children with their parent; mirror that so stale paths never linger.
            if interfaces.contains(BlueZ.device) || interfaces.contains(BlueZ.adapter) {
                for child in objects.keys where child.hasPrefix(path + "/") { objects[child] = nil }
            }
            return .removed(path: path, interfaces: interfaces)
        case (BlueZ.properties, "PropertiesChanged"):
            guard signal.arguments.count >= 2, let path = signal.path, let interface = signal.arguments[0].string,
                let changed = signal.arguments[1].stringKeyed
            else { return .ignored }
            let invalidated = signal.arguments.count > 2 ? (signal.arguments[2].stringArray ?? []) : []
            if objects[path]?[interface] != nil {
                objects[path]?[interface]?.merge(changed) { $1 }
                for name in invalidated { objects[path]?[interface]?[name] = nil }
            }
            return .properties(path: path, interface: interface, changed: changed, invalidated: invalidated)
        default:
            return .ignored
        }
    }

    // MARK: - Queries

    public func properties(_ path: String, _ interface: String) -> Properties? {
        objects[path]?[interface]
    }

    /// Paths that implement `interface`, sorted.
    public func paths(implementing interface: String, under prefix: String? = nil) -> [String] {
        objects.compactMap { path, interfaces in
            guard interfaces[interface] != nil else { return nil }
            if let prefix, !path.hasPrefix(prefix + "/") { return nil }
            return path
        }.sorted()
    }

    /// The Device1 path of an address on an adapter, if bluetoothd has the object.
    public func devicePath(address: String, adapter: String) -> String? {
        paths(implementing: BlueZ.device, under: adapter).first {
            properties($0, BlueZ.device)?["Address"]?.string?.uppercased() == address.uppercased()
        }
    }

    /// Characteristic UUID (lower-case, as BlueZ writes it) → path, for one device.
    public func characteristics(of devicePath: String) -> [String: String] {
        var out: [String: String] = [:]
        for path in paths(implementing: BlueZ.gattCharacteristic, under: devicePath) {
            if let uuid = properties(path, BlueZ.gattCharacteristic)?["UUID"]?.string { out[uuid.lowercased()] = path }
        }
        return out
    }

    /// The paths of the descriptors of `uuid` (lower-case, as BlueZ writes it) under one characteristic, sorted
    /// (bluetoothd names them `descNNNN` by handle, so in handle order).
    public func descriptors(_ uuid: String, of characteristicPath: String) -> [String] {
        paths(implementing: BlueZ.gattDescriptor, under: characteristicPath).filter {
            properties($0, BlueZ.gattDescriptor)?["UUID"]?.string?.lowercased() == uuid.lowercased()
        }
    }

    /// Service UUID → characteristic UUIDs for one device.
    public func services(of devicePath: String) -> [String: [String]] {
        var out: [String: [String]] = [:]
        for service in paths(implementing: BlueZ.gattService, under: devicePath) {
            guard let uuid = properties(service, BlueZ.gattService)?["UUID"]?.string else { continue }
            let characteristics = paths(implementing: BlueZ.gattCharacteristic, under: service).compactMap {
                properties($0, BlueZ.gattCharacteristic)?["UUID"]?.string
            }
            out[uuid.lowercased(), default: []].append(contentsOf: characteristics.map { $0.lowercased() })
        }
        return out
    }

    private static func interfaces(_ value: DBusValue) -> [String: Properties] {
        var out: [String: Properties] = [:]
        for entry in value.entries ?? [] {
            guard let interface = entry.key.string else { continue }
            out[interface] = entry.value.stringKeyed ?? [:]
        }
        return out
    }
}
