import ArgumentParser
import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import SessionReplay

struct ImportBTSnoop: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "btsnoop",
        abstract: "Turn an HCI capture (Android snoop log, btmon -w) into a recording that replay reads.",
        discussion: """
            Reads a btsnoop file — Android's HCI snoop log (Developer options → Enable Bluetooth HCI snoop log; \
            the file is btsnoop_hci.log in a bug report) or `btmon -w FILE` on Linux — with datalink 1001, 1002 \
            (H4) or 2001 (Linux monitor). ACL fragments are reassembled, the ATT channel is read, and the \
            capture's own service discovery gives each handle its characteristic. The recording gets the \
            advertisements, connections and disconnections, the services, the values the device sent \
            (notifications, indications, read responses) and the values the phone or bridge wrote.

            A bonded device is often not discovered again: capture its first connection (remove the pairing \
            first), or name the handles with --handle: the service of a SIG characteristic is known (2A9D is \
            the Weight Scale's), a vendor characteristic's is named as SERVICE/UUID, and the recording's \
            services line lists them so a profile can claim the device. Values on handles without a \
            characteristic are left out with a warning. The capture does not say which time zone the phone was in: give --time-zone so the \
            devices' own clocks are read right (else replay's --time-zone applies).

            Examples:
              carebridge import btsnoop btsnoop_hci.log --out scale.jsonl \\
                  --time-zone Europe/Berlin
              carebridge import btsnoop capture.btsnoop --device C8:47:8C:00:12:34 \\
                  --out scale.jsonl
              carebridge import btsnoop capture.btsnoop \\
                  --handle 0x0012=2A9D > scale.jsonl
              carebridge import btsnoop meter.btsnoop --handle 0x0025=2A18 \\
                  --handle 0x002D=1808/2A52 --out meter.jsonl
              carebridge replay scale.jsonl --store /tmp/try.sqlite

            The recording holds real addresses and names: `carebridge recording redact` before sharing it.

            Exit status: 0 written; 65 not a btsnoop capture this reads; 66 the capture cannot be read; \
            73 the recording cannot be written.
            """
    )

    @Option(name: .long, help: ArgumentHelp("Write the recording here instead of standard output.", valueName: "file"))
    var out: String?

    @Option(name: .long, help: FileMode.help)
    var mode: FileMode = .private

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Time zone of the phone or bridge that captured (IANA name), kept in the recording's header.",
            valueName: "zone"
        )
    )
    var timeZone: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A value handle and its characteristic, for captures without discovery (repeatable).",
            valueName: "0xHHHH=UUID"
        )
    )
    var handle: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp("Keep only this device's events (repeatable; default: every device).", valueName: "address")
    )
    var device: [String] = []

    @Flag(name: .long, help: "Print the summary as JSON on standard output (needs --out).")
    var json = false

    @Argument(help: "The btsnoop capture.", completion: .file())
    var file: String

    func validate() throws {
        if json && out == nil {
            throw ValidationError("--json needs --out: without it the recording itself goes to standard output")
        }
        _ = try handleOptions()
        for address in device where !Self.isAddress(address) {
            throw ValidationError("--device '\(address)' is not a Bluetooth address such as C8:47:8C:00:12:34")
        }
        if let timeZone, TimeZone(identifier: timeZone) == nil {
            throw ValidationError("unknown time zone '\(timeZone)': use an IANA name such as Europe/Berlin or UTC")
        }
    }

    func run() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
            Output.error("\(file): no such file")
            throw ExitCode(66)
        }
        guard !isDirectory.boolValue else {
            Output.error("\(file): is a directory, not a capture")
            throw ExitCode(66)
        }
        // Read a record at a time, twice: first every record's time (a capture with one out of range is refused
        // before anything is written), then the records themselves, each written as it settles.
        let reader: BTSnoopReader
        let timesNeverGoBack: Bool
        do {
            reader = try BTSnoopReader(path: file)
            timesNeverGoBack = try reader.timesNeverGoBack()
        } catch {
            throw failure(error)
        }
        let options = try handleOptions()
        for handle in options.handlesWithoutService {
            let name = options.handles[handle].map { "\($0)" } ?? "?"
            Output.error(
                "warning: --handle \(String(format: "0x%04X", handle))=\(name): its service is not "
                    + "known, so no profile can claim the device by it; name it as SERVICE/UUID "
                    + "(e.g. 0x0020=1808/2A52)"
            )
        }
        var stream = BTSnoopImporter.Stream(
            options: options,
            datalink: reader.datalink,
            timesNeverGoBack: timesNeverGoBack
        )
        var extra: JSONObject = [
            "source": .string("btsnoop"),
            "capture": .string(URL(fileURLWithPath: file).lastPathComponent),
            "datalink": .int(Int(reader.datalink.rawValue)),
        ]
        if !device.isEmpty { extra["devices"] = .array(device.map { .string($0.uppercased()) }) }
        var recording = ImportedRecording(
            path: out,
            input: file,
            mode: mode.bits,
            timeZone: timeZone.flatMap(TimeZone.init(identifier:)),
            extra: extra
        )
        var firstRecordTime: Date?
        let result: BTSnoopImporter.Result
        do {
            do {
                while let record = try reader.next() {
                    if firstRecordTime == nil { firstRecordTime = record.time }
                    try recording.write(stream.add(record))
                }
            } catch let error as BTSnoopError {
                recording.discard()
                throw failure(error)
            }
            result = stream.finish(truncatedTail: reader.truncatedTail)
            try recording.write(result.events)
            // The first event's time; with none, the first record's.
            try recording.close(recordedAt: firstRecordTime ?? Date(timeIntervalSince1970: 0))
        } catch let error as RecordingError {
            recording.discard()
            Output.error(error.description)
            throw ExitCode(73)
        }
        for warning in result.warnings { Output.error("warning: \(warning)") }
        if timeZone == nil {
            Output.error(
                "note: the recording has no time zone; give --time-zone here or to replay so device clocks read right"
            )
        }
        let s = result.statistics
        if json {
            let summary: JSONObject = [
                "capture": .string(file),
                "recording": .string(out ?? "-"),
                "datalink": .int(Int(reader.datalink.rawValue)),
                "packets": .int(s.packets),
                "events": .int(recording.eventCount),
                "advertisements": .int(s.advertisements),
                "connections": .int(s.connections),
                "notifications": .int(s.notifications),
                "indications": .int(s.indications),
                "reads": .int(s.reads),
                "writes": .int(s.writes),
                "unmappedValues": .int(s.unmappedValues),
                "droppedPackets": .int(s.droppedPackets),
                "truncatedPackets": .int(s.truncatedPackets),
                "warnings": .array(result.warnings.map { .string($0) }),
            ]
            print(JSONValue.object(summary).serialized())
        } else {
            Output.error(
                "imported \(s.packets) packet(s): \(s.connections) connection(s), \(s.advertisements) advertisement(s), "
                    + "\(s.notifications) notification(s), \(s.indications) indication(s), \(s.reads) read(s), "
                    + "\(s.writes) write(s)" + (out.map { " → \($0)" } ?? "")
            )
        }
    }

    /// The exit for a capture that cannot be read (66) or is not one this reads (65), its error printed.
    func failure(_ error: BTSnoopError) -> ExitCode {
        Output.error("\(file): " + (error.code == .unreadable ? error.message : error.description))
        return ExitCode(error.code == .unreadable ? 66 : 65)
    }

    /// `--handle 0x0012=2A9D` (or `0x0012=181D/2A9D`, naming the service) options as importer options.
    func handleOptions() throws -> BTSnoopImporter.Options {
        var characteristics: [UInt16: BluetoothUUID] = [:]
        var services: [UInt16: BluetoothUUID] = [:]
        for entry in handle {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            var number = parts.first ?? ""
            if number.lowercased().hasPrefix("0x") { number = String(number.dropFirst(2)) }
            let uuids = parts.count == 2 ? parts[1].split(separator: "/", omittingEmptySubsequences: false) : []
            guard let value = UInt16(number, radix: 16), (1...2).contains(uuids.count),
                let characteristic = BluetoothUUID(String(uuids[uuids.count - 1])),
                uuids.count == 1 || BluetoothUUID(String(uuids[0])) != nil
            else {
                throw ValidationError(
                    "--handle '\(entry)' is not HANDLE=UUID or HANDLE=SERVICE/UUID, e.g. --handle 0x0012=2A9D or "
                        + "--handle 0x0012=181D/2A9D (the handle in hex, as btmon and Wireshark show it)"
                )
            }
            characteristics[value] = characteristic
            if uuids.count == 2 { services[value] = BluetoothUUID(String(uuids[0])) }
        }
        return BTSnoopImporter.Options(
            handles: characteristics,
            handleServices: services,
            devices: device.isEmpty ? nil : Set(device)
        )
    }

    static func isAddress(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 6 && parts.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
    }
}
