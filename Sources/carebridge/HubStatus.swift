import ArgumentParser
import BridgeFoundation
import CareHub
import Foundation

/// `carebridge hub status`: every bridge, its patients, last contact and what the hub holds from it.
struct HubStatus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the enrolled bridges (patients, last contact, backlog, rows received) and their devices.",
        discussion: """
            BACKLOG is what the bridge said it still held with its last batch. CHANGES: plans, acknowledgements \
            and quarantine decisions from the hub the bridge had not dealt with at its last sync; REFUSED: those it \
            refused (the hub's log says why); RETRACTED: of SAMPLES, those deleted or replaced on the bridge after \
            they went up (kept, marked). Then each bridge's devices per patient as the bridge last described them: \
            model, serial, firmware, battery and the patient's last reading from it. JSON (--json): [{"bridge", \
            "patients", "enrolledAt", "lastContact", "backlog", "samples", "outcomes", "alerts", \
            "lastSampleSequence", "changesWaiting", "changesRefused", "retracted", "devices": [{"patient", \
            "device", "address", "name", "model", "serial", "firmware", "battery", "batteryAt", "lastSeen", \
            "receivedAt"}]}], times in UTC (a device's as the bridge wrote them).

            Examples:
              carebridge hub status --database postgres://carebridge@localhost/hub
            """
    )

    @OptionGroup var database: HubDatabaseOptions

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let (bridges, devices) = try await database.withStore(logger: CLILogging.logger) { store in
            (try await store.status(), try await store.devices())
        }
        if json {
            let list = bridges.map { bridge -> JSONValue in
                var object = bridge.json.objectValue ?? [:]
                object["devices"] = .array(
                    devices.filter { $0.bridge == bridge.name }.map { device in
                        var fields = device.json.objectValue ?? [:]
                        fields["bridge"] = nil
                        return .object(fields)
                    }
                )
                return .object(object)
            }
            print(JSONValue.array(list).serialized(pretty: Output.isTerminal))
            return
        }
        guard !bridges.isEmpty else {
            print("no bridges enrolled (carebridge hub enrol)")
            return
        }
        let format = ISO8601DateFormatter()
        var table = Table([
            "BRIDGE", "PATIENTS", "LAST CONTACT", "BACKLOG", "SAMPLES", "RETRACTED", "OUTCOMES", "ALERTS", "CHANGES",
            "REFUSED",
        ])
        for bridge in bridges {
            table.append([
                bridge.name, bridge.patients.joined(separator: ","),
                bridge.lastContact.map { format.string(from: $0) } ?? "never", bridge.backlog.map { "\($0)" } ?? "-",
                "\(bridge.samples)", "\(bridge.retracted)",
                "\(bridge.outcomes)", "\(bridge.alerts)", "\(bridge.changesWaiting)", "\(bridge.changesRefused)",
            ])
        }
        print(table.render())
        guard !devices.isEmpty else { return }
        var list = Table(["BRIDGE", "PATIENT", "DEVICE", "MODEL", "SERIAL", "FIRMWARE", "BATTERY", "LAST READING"])
        for device in devices {
            list.append([
                device.bridge, device.patient, device.name.map { "\(device.key) (\($0))" } ?? device.key,
                device.model ?? "-", device.serial ?? "-", device.firmware ?? "-",
                device.battery.map { "\($0) %" } ?? "-", device.lastSeen ?? "never",
            ])
        }
        print("")
        print(list.render())
    }
}
