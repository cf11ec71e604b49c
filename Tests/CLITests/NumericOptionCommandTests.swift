import Foundation
import TestSupport
import Testing

/// Every numeric option of every command is range-checked before anything runs (`NumericOption`): a value out
/// of range, not finite, or too large for its type is refused with exit 64 naming the option, and no store is
/// created. The table is checked against the sources, so an option added without a row fails here.
@Suite struct NumericOptionCommandTests {
    /// One numeric option: the command line that reaches its check (without the option), and values it refuses.
    struct Row: Sendable, CustomStringConvertible {
        var command: [String]
        var option: String
        var refused: [String]
        var description: String { "\(command.joined(separator: " ")) \(option)" }
    }

    static let replay = ["replay", "/nonexistent.jsonl"]
    static let deliver = ["alerts", "deliver", "--webhook", "http://127.0.0.1:1/hook"]
    static let consent = ["devices", "consent", "C4:7C:8D:6A:3E:10"]
    /// Beyond every integer type: ArgumentParser refuses it as the option's value.
    static let twoToThe63 = "9223372036854775808"

    static let rows: [Row] = [
        Row(command: ["alerts"], option: "--days", refused: ["-5", "36501", twoToThe63, "1.5"]),
        Row(command: deliver, option: "--wait", refused: ["1e18", "86401", "1e10", "-1", "nan", "inf"]),
        Row(command: deliver, option: "--interval", refused: ["nan", "inf", "-inf", "1e-300", "0", "86401"]),
        Row(
            command: ["devices", "assign", "AA:BB:CC:DD:EE:FF", "p"],
            option: "--slot",
            refused: ["-1", "255", twoToThe63]
        ),
        Row(command: consent, option: "--consent-code", refused: ["-1", "10000", twoToThe63]),
        Row(
            command: consent + ["--consent-code", "1"],
            option: "--user-index",
            refused: ["-1", "255", twoToThe63]
        ),
        Row(command: ["complete", "x"], option: "--occurrence", refused: ["-3", "2147483648", twoToThe63]),
        Row(command: ["uncomplete", "x"], option: "--occurrence", refused: ["-3", twoToThe63]),
        Row(command: ["export", "--format", "csv"], option: "--page-size", refused: ["0", "1000001", twoToThe63]),
        Row(command: replay, option: "--mqtt-wait", refused: ["1e17", "-1", "nan", "86401"]),
        Row(command: replay, option: "--mqtt-retry", refused: ["1e17", "0", "inf"]),
        Row(command: replay, option: "--speed", refused: ["1e-300", "1e300", "nan", "0", "-1"]),
        Row(command: ["run"], option: "--mqtt-wait", refused: ["1e18", "nan"]),
        Row(command: ["run"], option: "--mqtt-retry", refused: ["0", "nan"]),
        Row(command: ["run"], option: "--scanner-watchdog", refused: ["1e17", "nan", "0", "86401"]),
        Row(command: ["run"], option: "--duration", refused: ["1e17", "0", "-1", "inf"]),
        Row(command: ["run"], option: "--clock-skew-tolerance", refused: ["1e300", "-1", "nan"]),
        Row(command: ["run"], option: "--passkey", refused: ["1000000", "-1", "4294967296"]),
        Row(
            command: ["record", "--out", "/nonexistent/r.jsonl"],
            option: "--duration",
            refused: ["inf", "0", "1e17"]
        ),
        Row(command: ["scan"], option: "--timeout", refused: ["1e17", "0", "nan", "86401"]),
        Row(command: ["samples"], option: "--limit", refused: ["-1", "0", "2147483648", twoToThe63]),
        Row(
            command: ["hub", "status", "--database", "postgres://carebridge@127.0.0.1:1/hub"],
            option: "--database-timeout",
            refused: ["0", "-1", "86401", "9223372036854775807", twoToThe63]
        ),
    ]

    static let cases: [(Row, String)] = rows.flatMap { row in row.refused.map { (row, $0) } }

    @Test("every numeric option refuses what it cannot use, naming the option", arguments: cases)
    func refusesOutOfRangeValues(row: Row, value: String) async throws {
        let scratch = try ScratchDirectory("carebridge-numeric-")
        let store = scratch.url.appendingPathComponent("store.sqlite").path
        let arguments = row.command + ["\(row.option)=\(value)"]
        let result = try await CarebridgeProcess.run(
            arguments + (["scan", "record", "hub"].contains(row.command[0]) ? [] : ["--store", store]),
            environment: ["TZ": "Europe/Berlin"]
        )
        #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderr)")
        #expect(result.stderr.contains(row.option), "\(arguments): \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    /// The table covers every numeric `@Option` declared in `Sources/carebridge` (its long name, from
    /// `.customLong("…")` or the property's name).
    @Test func theTableCoversEveryNumericOptionInTheSources() throws {
        let directory = PackageRoot.url.appendingPathComponent("Sources/carebridge")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".swift")
        }
        let numeric =
            #/@Option\(((?:[^()]|\([^()]*(?:\([^()]*\))?[^()]*\))*)\)\s*(?:public\s+)?var\s+(\w+)\s*(?::\s*(?:Double|Int|Int64|Int32|UInt32|UInt16|UInt8|TimeInterval)\??|=\s*-?[0-9][0-9_.]*\s*$)/#
            .anchorsMatchLineEndings()
        var declared: Set<String> = []
        for file in files {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: numeric) {
                let attributes = String(match.output.1)
                if let custom = attributes.firstMatch(of: #/customLong\("([^"]+)"\)/#) {
                    declared.insert("--\(custom.output.1)")
                } else {
                    let name = String(match.output.2)
                    let kebab = name.reduce(into: "") { text, character in
                        if character.isUppercase {
                            text += "-" + character.lowercased()
                        } else {
                            text.append(character)
                        }
                    }
                    declared.insert("--\(kebab)")
                }
            }
        }
        #expect(declared.count >= 15, "the scan found \(declared.sorted())")
        let covered = Set(Self.rows.map(\.option))
        #expect(
            declared.subtracting(covered).isEmpty,
            "numeric options without a row: \(declared.subtracting(covered).sorted())"
        )
    }
}
