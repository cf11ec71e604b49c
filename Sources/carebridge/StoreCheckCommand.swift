import ArgumentParser
import BridgeFoundation
import CareStore
import Foundation

struct StoreCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the store file for damage: integrity, missing references, schema level.",
        discussion: """
            Runs SQLite's integrity check (--quick: the faster quick_check, which does not compare indexes with \
            their tables), looks for rows that refer to rows that are not there (foreign keys) and reports how \
            far the schema is migrated. The file is opened read-only; nothing is changed or repaired, so it is \
            safe on a damaged store and while the bridge runs.

            A damaged store (after a disk or power failure, or a copy taken while it was being written): stop \
            what writes to it, copy the store and its -wal file aside, then recover what SQLite can still read \
            into a new file and check that one:
              sqlite3 store.sqlite .recover | sqlite3 recovered.sqlite
              carebridge store check --store recovered.sqlite
            If that fails too, restore the store from a backup.

            JSON (--json): {"store", "bytes", "quick", "healthy", "integrity": [..], "missingReferences": \
            [{"table", "rowid", "parent"}], "schema": {"state", "last", "pending", "unknown"}}.

            Examples:
              carebridge store check
              carebridge store check --quick --json

            Exit status: 0 healthy (a schema behind this release is upgraded by the next write); 1 damaged, \
            rows missing what they refer to, or written by a newer CareBridge; 74 no store, or it cannot be read.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Run SQLite's quick_check instead of the full integrity_check.")
    var quick = false

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() throws {
        let check: StoreCheck
        do {
            check = try StoreCheck.run(path: storeOptions.path, quick: quick)
        } catch {
            Output.error(error.message)
            throw ExitCode(StoreExit.storeUnavailable)
        }
        if json {
            print(Self.json(check).serialized(pretty: Output.isTerminal))
        } else {
            print(Self.text(check))
        }
        if !check.isHealthy { throw ExitCode(1) }
    }

    static func text(_ check: StoreCheck) -> String {
        var lines = ["store \(check.path): \(StoreStats.bytes(check.bytes))"]
        let name = check.quick ? "quick check" : "integrity check"
        if check.integrityProblems.isEmpty {
            lines.append("\(name): ok")
        } else {
            lines.append("\(name): \(check.integrityProblems.count) problem(s)")
            lines += check.integrityProblems.map { "  " + TerminalText.sanitize($0) }
            lines.append(
                "the file is damaged: stop what writes to it, copy it (and its -wal file) aside, then "
                    + "`sqlite3 \(check.path) .recover | sqlite3 recovered.sqlite` and check recovered.sqlite; "
                    + "if that fails too, restore from a backup"
            )
        }
        if check.missingReferences.isEmpty {
            lines.append("references: ok")
        } else {
            lines.append("references: \(check.missingReferences.count) row(s) refer to rows that are not there")
            lines += check.missingReferences.map { reference in
                "  \(reference.table) row \(reference.rowid.map(String.init) ?? "?") → missing \(reference.parent)"
            }
            lines.append(
                "readings or outcomes may have lost their task, patient or device: keep a copy of the store and "
                    + "report it with `carebridge store check --json`"
            )
        }
        switch check.level {
        case .current(let last):
            lines.append("schema: current (\(last))")
        case .behind(let last, let pending):
            lines.append(
                "schema: at \(last ?? "none"), \(pending.count) migration(s) to apply; the next command that "
                    + "writes applies them"
            )
        case .newer(let unknown):
            lines.append(
                "schema: written by a newer CareBridge (\(unknown.joined(separator: ", "))): use that release "
                    + "with this store"
            )
        }
        lines.append(check.isHealthy ? "healthy" : "NOT healthy")
        return lines.joined(separator: "\n")
    }

    static func json(_ check: StoreCheck) -> JSONValue {
        var schema: JSONObject
        switch check.level {
        case .current(let last):
            schema = ["state": .string("current"), "last": .string(last), "pending": .array([])]
        case .behind(let last, let pending):
            schema = [
                "state": .string("behind"), "last": last.map { .string($0) } ?? .null,
                "pending": .array(pending.map { .string($0) }),
            ]
        case .newer(let unknown):
            schema = ["state": .string("newer"), "unknown": .array(unknown.map { .string($0) })]
        }
        return .object([
            "store": .string(check.path), "bytes": .int(check.bytes), "quick": .bool(check.quick),
            "healthy": .bool(check.isHealthy), "integrity": .array(check.integrityProblems.map { .string($0) }),
            "missingReferences": .array(
                check.missingReferences.map { reference in
                    .object([
                        "table": .string(reference.table), "rowid": reference.rowid.map { .int(Int($0)) } ?? .null,
                        "parent": .string(reference.parent),
                    ])
                }
            ),
            "schema": .object(schema),
        ])
    }
}
