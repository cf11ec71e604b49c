import ArgumentParser
import BlueZTransport
import BridgeFoundation

struct Adapters: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List Bluetooth controllers: hardware (udev) and BlueZ state.",
        discussion: """
            Joins what the kernel reports through udev (name, bus, USB vendor:product, manufacturer, driver) \
            with what bluetoothd reports over D-Bus (address, powered, rfkill power state, discovering). A \
            controller udev sees but bluetoothd does not is usually blocked or not yet initialised; in \
            containers udev sees nothing and only the BlueZ columns are filled.

            Examples:
              carebridge adapters
              carebridge adapters --json

            \(BlueZExit.help)
            """
    )

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    /// EX_UNAVAILABLE, as for a missing bluetoothd.
    static let noAdapter: Int32 = 69

    func run() async throws {
        let hardware: [BluetoothController]
        do {
            hardware = try UdevControllers.list()
        } catch {
            Output.error("warning: udev: \(error)")
            hardware = []
        }
        var bluez: [BlueZAdapterState] = []
        var bluezProblem: TransportError?
        do {
            bluez = try await BlueZAdapters.list()
        } catch {
            bluezProblem = error
        }
        let report = BlueZAdapters.report(hardware: hardware, bluez: bluez)
        if json {
            var array: [JSONValue] = []
            for row in report {
                var object: JSONObject = ["name": .string(row.name)]
                if let hw = row.hardware {
                    var h: JSONObject = ["sysPath": .string(hw.sysPath)]
                    if let v = hw.bus { h["bus"] = .string(v) }
                    if let v = hw.usbVendorID { h["usbVendor"] = .string(v) }
                    if let v = hw.usbProductID { h["usbProduct"] = .string(v) }
                    if let v = hw.manufacturer { h["manufacturer"] = .string(v) }
                    if let v = hw.product { h["product"] = .string(v) }
                    if let v = hw.driver { h["driver"] = .string(v) }
                    object["hardware"] = .object(h)
                }
                if let b = row.bluez {
                    var z: JSONObject = ["powered": .bool(b.powered), "discovering": .bool(b.discovering)]
                    if let v = b.address { z["address"] = .string(v) }
                    if let v = b.alias { z["alias"] = .string(v) }
                    if let v = b.powerState { z["powerState"] = .string(v) }
                    if let v = b.modalias { z["modalias"] = .string(v) }
                    object["bluez"] = .object(z)
                }
                array.append(.object(object))
            }
            var top: JSONObject = ["adapters": .array(array)]
            if let bluezProblem { top["bluezError"] = .string(bluezProblem.description) }
            print(JSONValue.object(top).serialized(pretty: Output.isTerminal))
        } else {
            var table = Table(["ADAPTER", "ADDRESS", "POWERED", "STATE", "DISCOVERING", "BUS", "USB ID", "PRODUCT"])
            for row in report {
                let usb = row.hardware.flatMap { hw in hw.usbVendorID.map { "\($0):\(hw.usbProductID ?? "?")" } } ?? "-"
                let product = [row.hardware?.manufacturer, row.hardware?.product].compactMap { $0 }.joined(
                    separator: " "
                )
                table.append([
                    row.name,
                    row.bluez?.address ?? "-",
                    row.bluez.map { $0.powered ? "yes" : "no" } ?? "-",
                    row.bluez?.powerState ?? (row.bluez == nil ? "not in bluetoothd" : "-"),
                    row.bluez.map { $0.discovering ? "yes" : "no" } ?? "-",
                    row.hardware?.bus ?? "-",
                    usb,
                    product.isEmpty ? "-" : product,
                ])
            }
            if report.isEmpty {
                print("no Bluetooth controller found")
            } else {
                print(table.render())
            }
        }
        if let bluezProblem {
            if !json { Output.error(bluezProblem.description) }
            throw ExitCode(bluezProblem.exitCode)
        }
        // Documented: 69 when there is no adapter; a controller udev sees but bluetoothd does not is unusable.
        if !report.contains(where: { $0.bluez != nil }) {
            if !json {
                Output.error(
                    "no Bluetooth adapter: bluetoothd has none (unplugged, driver missing, blocked, or hidden in a "
                        + "container; see `dmesg | grep -i bluetooth` and `rfkill list`)"
                )
            }
            throw ExitCode(Self.noAdapter)
        }
    }
}
