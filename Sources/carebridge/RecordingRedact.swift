import ArgumentParser
import BridgeCore
import DeviceProfiles
import Foundation
import SessionReplay

struct RecordingRedact: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redact",
        abstract: "Replace device addresses and names in a recording, so it can be shared in a bug report.",
        discussion: """
            Every Bluetooth address becomes 02:00:00:00:XX:XX (the same address always gets the same \
            replacement) wherever it appears and however it is written: with colons, dashes or underscores \
            (BlueZ paths), in either case, without separators, and inside payload bytes (either byte order). \
            Advertised names become "Device 1", "Device 2", … in the name field and everywhere else they appear \
            (notes, errors, disconnect reasons, the header, unreadable lines); the header's host, hostname and \
            user become "redacted". Payloads are otherwise kept, so the redacted file replays like the \
            original; Device Information values are kept too unless --redact-device-information replaces the \
            serial number and System ID. The file is read twice, line by line.

            A device that a profile claims by its advertised name (the Mi scales: MIBFS, MIBCS) is not claimed \
            in the redacted file unless --keep-names: model names like these identify no person.

            Examples:
              carebridge recording redact session.jsonl --out session-redacted.jsonl
              carebridge recording redact session.jsonl > shared.jsonl

            --out writes a new file (mode 0600 unless --mode) that replaces an existing one only when the whole \
            recording was redacted; it may not be the recording itself.

            Exit status: 0 written; 66 the recording cannot be read; 73 the output cannot be written.
            """
    )

    @Option(name: .long, help: ArgumentHelp("Write here instead of standard output.", valueName: "file"))
    var out: String?

    @Option(name: .long, help: FileMode.help)
    var mode: FileMode = .private

    @Flag(name: .long, help: "Keep advertised names (only addresses are replaced).")
    var keepNames = false

    @Flag(name: .long, help: "Also replace Serial Number String and System ID values.")
    var redactDeviceInformation = false

    @Argument(help: "The recording to redact.", completion: .file(extensions: ["jsonl"]))
    var file: String

    func run() throws {
        var redactor = RecordingRedactor(keepNames: keepNames, redactDeviceInformation: redactDeviceInformation)
        do {
            let report: RecordingRedactor.Report
            if let out {
                report = try redactor.redact(input: file, output: out, mode: mode.bits)
                Output.error(
                    "redacted \(report.lines) lines: \(report.addresses) address(es), \(report.names) name(s) → \(out)"
                )
            } else {
                report = try redactor.redact(input: file, to: FileHandle.standardOutput)
            }
            for line in report.unparsedLines {
                Output.error("warning: \(file):\(line) is not valid JSON; only its addresses and names were replaced")
            }
            if redactDeviceInformation {
                Output.error("replaced \(report.deviceInformationValues) Device Information value(s)")
            } else {
                Output.error(
                    "note: payloads are kept (a replay decodes them), including Device Information values such as "
                        + "the serial number; --redact-device-information replaces those"
                )
            }
            warnAboutNameMatchedProfiles(report.redactedNames, redactor: redactor)
        } catch {
            Output.error(error.description)
            throw ExitCode(error.code == .cannotOpen ? 66 : 73)
        }
    }

    /// Names that a profile matches by name no longer match once redacted: say so (by profile, not by name).
    func warnAboutNameMatchedProfiles(_ names: [String], redactor: RecordingRedactor) {
        guard !names.isEmpty else { return }
        let profiles = DeviceProfileLoader.loadDefault()
            .catalog.profiles.filter { $0.match.namePattern != nil }
        var claimed: Set<String> = []
        for name in names {
            for profile in profiles {
                guard let pattern = profile.match.namePattern,
                    DeviceProfile.Match(namePattern: pattern).matches(Advertisement(name: name))
                else { continue }
                claimed.insert(profile.id)
            }
        }
        guard !claimed.isEmpty else { return }
        Output.error(
            "warning: profile(s) \(claimed.sorted().joined(separator: ", ")) claim devices by their advertised name; "
                + "with the names redacted a replay will not claim them: use --keep-names (model names such as "
                + "MIBFS identify no person)"
        )
    }
}
