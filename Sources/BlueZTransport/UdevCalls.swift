// The one file that talks to libudev. Strings are copied out before the udev objects are released; no C
// pointer leaves this file.

internal import CUdev
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A Bluetooth controller as the kernel and udev see it (`/sys/class/bluetooth/hciN`).
public struct BluetoothController: Sendable, Hashable {
    /// `hci0`.
    public var name: String
    public var sysPath: String
    /// USB vendor and product id (`0a12`, `0001`) when the controller hangs off USB.
    public var usbVendorID: String?
    public var usbProductID: String?
    /// USB manufacturer and product strings, when the device reports them.
    public var manufacturer: String?
    public var product: String?
    /// Bus of the parent device (`usb`, `serial`, `sdio`, `platform`, …).
    public var bus: String?
    public var driver: String?

    public init(
        name: String,
        sysPath: String,
        usbVendorID: String? = nil,
        usbProductID: String? = nil,
        manufacturer: String? = nil,
        product: String? = nil,
        bus: String? = nil,
        driver: String? = nil
    ) {
        self.name = name
        self.sysPath = sysPath
        self.usbVendorID = usbVendorID
        self.usbProductID = usbProductID
        self.manufacturer = manufacturer
        self.product = product
        self.bus = bus
        self.driver = driver
    }
}

/// Failures of libudev calls.
public struct UdevError: Error, Sendable, CustomStringConvertible {
    public var operation: String
    public var errno: Int32
    public var description: String { "\(operation) failed: \(String(cString: strerror(errno)))" }
}

/// Enumerates Bluetooth controllers through libudev.
public enum UdevControllers {
    /// Every `bluetooth` device with `DEVTYPE=host`, sorted by name. Empty where there is no Bluetooth
    /// subsystem (containers, CI).
    public static func list() throws(UdevError) -> [BluetoothController] {
        guard let udev = udev_new() else { throw UdevError(operation: "udev_new", errno: errno) }
        defer { udev_unref(udev) }
        guard let enumerate = udev_enumerate_new(udev) else {
            throw UdevError(operation: "udev_enumerate_new", errno: errno)
        }
        defer { udev_enumerate_unref(enumerate) }
        var r = udev_enumerate_add_match_subsystem(enumerate, "bluetooth")
        if r < 0 { throw UdevError(operation: "udev_enumerate_add_match_subsystem", errno: -r) }
        r = udev_enumerate_scan_devices(enumerate)
        if r < 0 { throw UdevError(operation: "udev_enumerate_scan_devices", errno: -r) }
        var controllers: [BluetoothController] = []
        var entry = udev_enumerate_get_list_entry(enumerate)
        while let current = entry {
            if let path = udev_list_entry_get_name(current),
                let device = udev_device_new_from_syspath(udev, path)
            {
                if let controller = controller(device) { controllers.append(controller) }
                udev_device_unref(device)
            }
            entry = udev_list_entry_get_next(current)
        }
        return controllers.sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
    }

    /// Copies what we need out of a udev device (nil unless it is a host controller).
    fileprivate static func controller(_ device: OpaquePointer) -> BluetoothController? {
        guard string(udev_device_get_devtype(device)) == "host", let name = string(udev_device_get_sysname(device))
        else { return nil }
        var controller = BluetoothController(name: name, sysPath: string(udev_device_get_syspath(device)) ?? "")
        // Not owned: freed with the child.
        if let usb = udev_device_get_parent_with_subsystem_devtype(device, "usb", "usb_device") {
            controller.usbVendorID = string(udev_device_get_sysattr_value(usb, "idVendor"))
            controller.usbProductID = string(udev_device_get_sysattr_value(usb, "idProduct"))
            controller.manufacturer = string(udev_device_get_sysattr_value(usb, "manufacturer"))
            controller.product = string(udev_device_get_sysattr_value(usb, "product"))
            controller.bus = "usb"
        }
        if let parent = udev_device_get_parent(device) {
            if controller.bus == nil { controller.bus = string(udev_device_get_subsystem(parent)) }
            controller.driver = string(udev_device_get_driver(parent))
        }
        return controller
    }

    fileprivate static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}

/// Follows controller hotplug (`add` / `remove` of `bluetooth`/`host` devices) on a thread of its own.
///
/// A hint only: D-Bus (`InterfacesAdded`/`Removed` of `Adapter1`) stays the authority. In containers the
/// netlink monitor may see nothing, or fail to start (`start` throws then).
public final class UdevHotplugMonitor: Sendable {
    private let stopped = StopFlag()

    public init() {}

    /// Starts the monitor thread; `handler(action, name)` runs on it for every event.
    public func start(_ handler: @escaping @Sendable (_ action: String, _ adapter: String) -> Void) throws(UdevError) {
        guard let udev = udev_new() else { throw UdevError(operation: "udev_new", errno: errno) }
        guard let monitor = udev_monitor_new_from_netlink(udev, "udev") else {
            udev_unref(udev)
            throw UdevError(operation: "udev_monitor_new_from_netlink", errno: errno)
        }
        var r = udev_monitor_filter_add_match_subsystem_devtype(monitor, "bluetooth", "host")
        if r >= 0 { r = udev_monitor_enable_receiving(monitor) }
        if r < 0 {
            udev_monitor_unref(monitor)
            udev_unref(udev)
            throw UdevError(operation: "udev_monitor_enable_receiving", errno: -r)
        }
        let fd = udev_monitor_get_fd(monitor)
        let box = MonitorBox(udev: udev, monitor: monitor)
        let stopped = self.stopped
        let thread = Thread {
            while !stopped.isSet {
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&pfd, 1, 500) > 0 else { continue }
                guard let device = udev_monitor_receive_device(box.monitor) else { continue }
                let action = UdevControllers.string(udev_device_get_action(device)) ?? ""
                let name = UdevControllers.string(udev_device_get_sysname(device)) ?? ""
                udev_device_unref(device)
                handler(action, name)
            }
            udev_monitor_unref(box.monitor)
            udev_unref(box.udev)
        }
        thread.name = "carebridge-udev"
        thread.start()
    }

    public func stop() {
        stopped.set()
    }
}

private final class StopFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}

/// The udev handles, moved to the monitor thread (only it uses them).
private final class MonitorBox: @unchecked Sendable {
    let udev: OpaquePointer
    let monitor: OpaquePointer
    init(udev: OpaquePointer, monitor: OpaquePointer) {
        self.udev = udev
        self.monitor = monitor
    }
}
