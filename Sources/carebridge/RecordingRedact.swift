import ArgumentParser
import Foundation
import SessionReplay

struct RecordingRedact: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redact",
        abstract: "Replace device addresses and names in a recording, so it can be shared in a bug report.",
        discussion: """
            Every Bluetooth address becomes 02:00:00:00:XX:XX (the same address always gets the same \
            replacement, wherever it appears, notes and unreadable lines included); advertised names become \
            "Device 1", "Device 2", …; the header's host becomes "redacted". Payloads, times and UUIDs are \
            unchanged, so the redacted file replays exactly like the original. The file is processed line by \
            line.

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

    @Argument(help: "The recording to redact.", completion: .file(extensions: ["jsonl"]))
    var file: String

    func run() throws {
        var redactor = RecordingRedactor(keepNames: keepNames)
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
                Output.error("warning: \(file):\(line) is not valid JSON; only its addresses were replaced")
            }
        } catch {
            Output.error(error.description)
            throw ExitCode(error.code == .cannotOpen ? 66 : 73)
        }
    }
}
