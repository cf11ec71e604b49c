import ArgumentParser
import BlueZTransport
import BridgeCore
import BridgeFoundation
import BridgeRuntime
import DeviceProfiles
import DeviceSessions
import Foundation
import GATTDecoding
import Synchronization

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

    struct Seen: Sendable {
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
        let heard = Mutex<[String: Seen]>([:])
        let note: @Sendable (TransportEvent) -> Void = { event in
            guard case .advertisement(let ad) = event.kind else { return }
            let plan = catalog.plan(forDevice: event.device, advertisement: ad)
            heard.withLock { seen in
                var entry = seen[event.device] ?? Seen(address: event.device)
                entry.adverts += 1
                if let name = ad.name { entry.name = name }
                if let rssi = ad.rssi { entry.rssi = rssi }
                entry.services.formUnion(ad.serviceUUIDs)
                entry.services.formUnion(ad.serviceData.keys)
                if let plan { entry.plan = plan }
                seen[event.device] = entry
            }
        }
        do {
            // Never connects; stops after --timeout, or on SIGINT/SIGTERM with what was heard until then.
            try await Bridge.watch(
                transport,
                stop: shutdown.request,
                duration: .milliseconds(Int64((timeout * 1000).rounded())),
                services: [
                    ScannerWatchdog(
                        scanner: transport.scanner,
                        silenceLimit: ScannerWatchdog<ContinuousClock>.defaultSilenceLimit,
                        clock: ContinuousClock(),
                        logger: CLILogging.logger
                    )
                ],
                forceQuit: ForcedStop.handler,
                logger: CLILogging.logger,
                body: note
            )
        } catch let error as TransportError {
            throw BlueZExit.fail(error)
        }
        let seen = heard.withLock { $0 }
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
