import ArgumentParser
import BridgeCore
import BridgeFoundation
import CarePlan
import CareStore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

struct StoreVacuum: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vacuum",
        abstract: "Apply the retention policy: aggregate, then delete raw samples past their horizon; compact.",
        discussion: """
            For each type with a rule in the stored retention policy (the plan file's "retention" key, e.g. \
            {"heartRate": {"keepRawDays": 90, "aggregateMinutes": 1}}), the raw samples measured before its \
            horizon (now − keepRawDays, rounded down to a bucket) are folded into per-bucket aggregates (count, \
            sum, min, max, first, last with their times, per device, source kind and patient) and then deleted. \
            Types without a rule are never touched; manual readings, quarantined, unassigned and LO/HI samples, \
            tombstones and samples still waiting in the MQTT outbox are kept raw. Events completed before keep \
            their outcomes; `samples`, event derivation and exports answer from the aggregates for that time.

            It first prints exactly what it will delete, per type, and needs --yes (or a "y" typed at the \
            prompt on a terminal); --dry-run prints the plan and changes nothing. It works in batches of six \
            hours of measurement time, each one transaction that writes the aggregates and deletes the samples \
            they replace, so an interrupted vacuum leaves a consistent store and loses nothing that is not \
            aggregated; running it again continues, and on a vacuumed store it changes nothing. Then it runs \
            SQLite's VACUUM and truncates the write-ahead log (only when something was deleted). VACUUM needs \
            about the store's size free beside it and again in the temporary directory (SQLITE_TMPDIR, TMPDIR, \
            else /var/tmp): a vacuum that would not fit is refused before anything is deleted, saying how much \
            to free and where (exit 74).

            JSON (--json): {"dryRun", "asOf", "steps": [{"type", "keepRawDays", "aggregateMinutes", "horizon", \
            "samples", "aggregates"}], "deleted", "fileBytesBefore", "fileBytesAfter"}.

            Examples:
              carebridge store vacuum --dry-run
              carebridge store vacuum --yes

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print what would be aggregated and deleted; change nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Delete without asking (needed when not on a terminal).")
    var yes = false

    @Option(
        name: .customLong("as-of"),
        help: ArgumentHelp(
            "Count horizons back from this instant instead of now (ISO-8601, not in the future).",
            valueName: "time"
        )
    )
    var asOf: String?

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let current = Date()
        let now = try asOf.map { try TimeArguments.parse($0, option: "--as-of", zone: zone) } ?? current
        guard now <= current else {
            throw ValidationError(
                "--as-of \(asOf ?? ""): is in the future; a vacuum may only count back from now or earlier"
            )
        }
        let store = try await storeOptions.open(zone: zone, mode: .existing, patients: .any)
        let policy: RetentionPolicy
        let plan: [RetentionStep]
        do {
            policy = try await store.retentionPolicy()
            plan = try await store.retentionPlan(now: now)
        } catch {
            throw StoreExit.fail(error)
        }
        let total = plan.reduce(0) { $0 + $1.samples }
        if policy.isEmpty {
            if json {
                print(Self.json(dryRun: dryRun, asOf: now, steps: [], deleted: 0, sizes: nil, zone: zone))
            } else {
                print(
                    "no retention policy: every sample is kept. Add \"retention\" to the plan file (e.g. "
                        + "{\"heartRate\": {\"keepRawDays\": 90}}) and run `carebridge plan apply`"
                )
            }
            return
        }
        if !json {
            var table = Table(["TYPE", "KEEP RAW", "AGGREGATE BY", "HORIZON", "SAMPLES TO DELETE", "AGGREGATES"])
            for step in plan {
                table.append([
                    step.type.rawValue, "\(step.keepRawDays) d", "\(step.aggregateMinutes) min",
                    TimeArguments.short(step.horizon, zone: zone), "\(step.samples)", "\(step.aggregates)",
                ])
            }
            print(table.render())
            let kept = QuantityType.allCases.filter { policy.rule(for: $0) == nil }.map(\.rawValue)
            print("types without a rule are kept as they are: \(kept.joined(separator: ", "))")
        }
        if dryRun || total == 0 {
            if json {
                print(Self.json(dryRun: dryRun, asOf: now, steps: plan, deleted: 0, sizes: nil, zone: zone))
            } else {
                print(
                    total == 0
                        ? "nothing to do: no raw sample is past its horizon"
                        : "dry run: would aggregate and then delete \(total) raw samples; nothing changed"
                )
            }
            return
        }
        // Before anything is deleted: a vacuum whose compaction cannot fit would stop at the same point every
        // time it is run again.
        if let shortage = CompactionSpace.measure(path: storeOptions.path).shortageMessage(bytes: StoreStats.bytes) {
            Output.error("store vacuum: \(shortage); nothing was changed")
            throw ExitCode(StoreExit.storeUnavailable)
        }
        if !yes {
            guard Output.isTerminal, isatty(STDIN_FILENO) != 0 else {
                Output.error(
                    "vacuum would delete \(total) raw samples (after aggregating them): run it again with --yes, "
                        + "or with --dry-run to only see the plan"
                )
                throw ExitCode(StoreExit.usage)
            }
            FileHandle.standardOutput.write(Data("Aggregate and then delete \(total) raw samples? [y/N] ".utf8))
            guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                print("nothing changed")
                return
            }
        }
        let showProgress = !json && isatty(STDERR_FILENO) != 0
        let done: [RetentionStep]
        do {
            done = try await store.applyRetention(now: now) { progress in
                guard showProgress else { return }
                let percent = progress.samplesPlanned > 0 ? progress.samplesDone * 100 / progress.samplesPlanned : 100
                FileHandle.standardError.write(
                    Data(
                        "\r\(progress.type.rawValue): \(progress.samplesDone) of \(progress.samplesPlanned) samples (\(percent)%), up to \(TimeArguments.short(progress.reached, zone: zone))\u{1B}[K"
                            .utf8
                    )
                )
            }
        } catch {
            if showProgress { FileHandle.standardError.write(Data("\n".utf8)) }
            guard !error.isDiskFull else { throw Self.diskFull(error, path: storeOptions.path) }
            Output.error("vacuum stopped; what was committed before is consistent, run it again to continue")
            throw StoreExit.fail(error)
        }
        if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        let deleted = done.reduce(0) { $0 + $1.samples }
        var sizes: (before: Int, after: Int)?
        if deleted > 0 {
            do {
                sizes = try await store.compactFile(path: storeOptions.path)
            } catch {
                guard !error.isDiskFull else { throw Self.diskFull(error, path: storeOptions.path) }
                throw StoreExit.fail(error)
            }
        }
        if json {
            print(Self.json(dryRun: false, asOf: now, steps: done, deleted: deleted, sizes: sizes, zone: zone))
            return
        }
        for step in done where step.samples > 0 {
            print(
                "\(step.type.rawValue): \(step.samples) raw samples aggregated into \(step.aggregates) aggregates and deleted"
            )
        }
        if let sizes {
            print("store file: \(StoreStats.bytes(sizes.before)) → \(StoreStats.bytes(sizes.after))")
        }
    }

    /// A disk that filled up while the vacuum ran (another writer, a log): says how much room it needs and where,
    /// rather than "run it again", which would stop at the same point.
    static func diskFull(_ error: CareStoreError, path: String) -> ExitCode {
        let space = CompactionSpace.measure(path: path)
        let needs = space.places.map { "\(StoreStats.bytes($0.needed)) free in \($0.directory)" }
        Output.error(
            "store vacuum stopped: the disk is full (\(error.message)). What was committed before is consistent; "
                + "it needs about \(needs.joined(separator: " and ")) to finish (SQLite's VACUUM copies the store, "
                + "\(StoreStats.bytes(space.storeBytes)), into its temporary directory and back through the "
                + "write-ahead log): free space there, or set TMPDIR to a disk with room for the copy, and run it again"
        )
        return ExitCode(StoreExit.storeUnavailable)
    }

    static func json(
        dryRun: Bool,
        asOf: Date,
        steps: [RetentionStep],
        deleted: Int,
        sizes: (before: Int, after: Int)?,
        zone: TimeZone
    ) -> String {
        var object: JSONObject = ["dryRun": .bool(dryRun), "asOf": .string(Timestamp.format(asOf, in: zone))]
        object["steps"] = .array(
            steps.map { step in
                .object([
                    "type": .string(step.type.rawValue), "keepRawDays": .int(step.keepRawDays),
                    "aggregateMinutes": .int(step.aggregateMinutes),
                    "horizon": .string(Timestamp.format(step.horizon, in: zone)), "samples": .int(step.samples),
                    "aggregates": .int(step.aggregates),
                ])
            }
        )
        object["deleted"] = .int(deleted)
        object["fileBytesBefore"] = sizes.map { .int($0.before) } ?? .null
        object["fileBytesAfter"] = sizes.map { .int($0.after) } ?? .null
        return JSONValue.object(object).serialized(pretty: Output.isTerminal)
    }
}
