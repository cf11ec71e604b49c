import ArgumentParser
import BlueZTransport
import BridgeCore
import BridgeFoundation
import DeviceProfiles
import Foundation
import GATTDecoding

struct Scan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Discover nearby Bluetooth LE devices and show which device profile claims each.",
        discussion: """
            Runs an LE discovery (Transport=le, DuplicateData=true, no UUID filter) for --timeout seconds and \
            never connects. Each device is listed with its address, name, last RSSI, how many advertisements \
            were heard, the advertised services, and the Devices/ profile that would handle it ("-" when none).

            Examples:
              carebridge scan
              carebridge scan --timeout 30 --adapter hci1 --json

            \(BlueZExit.help)
            """
    )

    @Option(name: .long, help: ArgumentHelp("Seconds to listen.", valueName: "seconds"))
    var timeout: Double = 10

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    @OptionGroup var bluez: BlueZOptions

    func validate() throws {
        try NumericOption.checkPositive(timeout, "--timeout", atMost: NumericOption.day)
    }

    struct Seen {
        var address: String
        var name: String?
        var rssi: Int?
        var adverts = 0
        var services: Set<BluetoothUUID> = []
        var plan: ConnectionPlan?
    }

    func run() async throws {
        let catalog = bluez.catalog()
        var configuration = bluez.configuration()
        configuration.scanOnly = true
        let transport = BlueZTransport(configuration: configuration, policy: nil, logger: CLILogging.logger)
        let shutdown = transport.shutdown
        let timer = Task {
            try? await Task.sleep(for: .milliseconds(Int(timeout * 1000)))
            shutdown.request()
        }
        defer { timer.cancel() }
        let signals = SignalTrap { shutdown.request() }
        defer { signals.cancel() }
        var seen: [String: Seen] = [:]
        do {
            for try await event in transport.events() {
                guard case .advertisement(let ad) = event.kind else { continue }
                var entry = seen[event.device] ?? Seen(address: event.device)
                entry.adverts += 1
                if let name = ad.name { entry.name = name }
                if let rssi = ad.rssi { entry.rssi = rssi }
                entry.services.formUnion(ad.serviceUUIDs)
                entry.services.formUnion(ad.serviceData.keys)
                if let plan = catalog.plan(forDevice: event.device, advertisement: ad) { entry.plan = plan }
                seen[event.device] = entry
            }
        } catch let error as TransportError {
            throw BlueZExit.fail(error)
        }
        let rows = seen.values.sorted { ($0.rssi ?? -999, $0.address) > ($1.rssi ?? -999, $1.address) }
        if json {
            let array: [JSONValue] = rows.map { row in
                var object: JSONObject = ["address": .string(row.address), "advertisements": .int(row.adverts)]
                if let name = row.name { object["name"] = .string(name) }
                if let rssi = row.rssi { object["rssi"] = .int(rssi) }
                object["services"] = .array(row.services.sorted().map { .string($0.description) })
                if let plan = row.plan {
                    object["profile"] = .string(plan.profile)
                    object["link"] = .string(plan.linkMode.rawValue)
                }
                return .object(object)
            }
            print(JSONValue.object(["devices": .array(array)]).serialized(pretty: Output.isTerminal))
        } else {
            var table = Table(["ADDRESS", "NAME", "RSSI", "ADVERTS", "SERVICES", "PROFILE"])
            for row in rows {
                table.append([
                    row.address, row.name ?? "-", row.rssi.map(String.init) ?? "-", String(row.adverts),
                    row.services.isEmpty ? "-" : row.services.sorted().map(\.description).joined(separator: ","),
                    row.plan.map { "\($0.profile) (\($0.linkMode.rawValue))" } ?? "-",
                ])
            }
            print(rows.isEmpty ? "no devices heard in \(timeout) s" : table.render())
        }
    }
}

/// Calls `handler` once on SIGINT or SIGTERM (the default action is restored after the first signal, so a
/// second Ctrl-C still kills a hung process).
final class SignalTrap: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]

    init(_ handler: @escaping @Sendable () -> Void) {
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler {
                signal(number, SIG_DFL)
                handler()
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
