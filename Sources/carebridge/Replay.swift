import ArgumentParser
import BridgeCore
import BridgeFoundation
import BridgeRuntime
import CarePlan
import CareStore
import DeviceProfiles
import Foundation
import GATTDecoding
import Insights
import MQTTBridge
import SampleIngest
import SessionReplay

struct Replay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay recorded sessions through the whole pipeline into the store.",
        discussion: """
            Each FILE is a recording (JSON Lines, see Recordings/README.md). Its events go through exactly the \
            code a live device's would: the device profiles (Devices/) claim the devices and pick the decoders, \
            the samples are normalised, stored, and complete the care plan's events. With --plan the plan is \
            applied first. Replaying a file again adds nothing.

            A bad line (invalid JSON, bad hex, malformed payload, unknown characteristic) is reported as \
            FILE:LINE and skipped; everything else is ingested. With --strict every file is checked first and, \
            if any line is bad, nothing is written.

            Profiles come from the built-in Devices/ directory, $XDG_CONFIG_HOME/carebridge/devices and every \
            --devices DIR (a later profile with the same id wins). Device clocks are read in the recording's \
            time zone (header), else --time-zone.

            Examples:
              carebridge replay --store /tmp/demo.sqlite --plan \\
                  Recordings/care-plan.json \\
                  Recordings/weight-scale-morning-weigh-in.jsonl
              carebridge replay \\
                  --speed realtime Recordings/heart-rate-strap-20-minutes.jsonl
              carebridge replay --mqtt mqtt://localhost \\
                  Recordings/thermometer-fahrenheit.jsonl

            With --mqtt every sample new to the store is queued in its outbox and published (see \
            `carebridge outbox`); at the end the replay waits up to --mqtt-wait seconds for the outbox to drain.

            Exit status: 0 replayed (also with skipped bad lines); 64 bad arguments; 65 bad lines with \
            --strict, or a malformed plan (nothing written), or no device profile claimed any device of the \
            recordings (nothing decoded); 66 a recording or plan cannot be read; 74 the \
            store cannot be opened or written; 75 with --mqtt, samples still pending after --mqtt-wait (they \
            stay in the outbox and go out with the next --mqtt run); 130 interrupted (SIGINT or SIGTERM): what was \
            read until then is stored, the summary counts it and says where it stopped, and replaying the same \
            files again stores the rest. \(ForcedStop.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions
    @OptionGroup var bindKeyOptions: BindKeysOptions
    @OptionGroup var mqtt: MQTTOptions

    @Option(name: .long, help: ArgumentHelp("A care plan to apply before replaying.", valueName: "file"))
    var plan: String?

    @Option(
        name: .long,
        help: ArgumentHelp("max (default), realtime, or a factor such as 10 (ten times faster).", valueName: "speed")
    )
    var speed: String = "max"

    @Option(name: .long, help: ArgumentHelp("Another directory of device profiles (repeatable).", valueName: "dir"))
    var devices: [String] = []

    @Flag(name: .long, help: "Refuse the whole replay (write nothing) if any line is bad.")
    var strict = false

    @Flag(name: .long, help: "Print the summary as JSON.")
    var json = false

    @Argument(help: "Recordings to replay, in order.", completion: .file(extensions: ["jsonl"]))
    var files: [String]

    /// Exit status after SIGINT or SIGTERM (128 + SIGINT, as a shell reports it).
    static let interruptedExit: Int32 = 130

    func validate() throws {
        guard ReplaySpeed(speed) != nil else {
            throw ValidationError(
                "--speed must be max, realtime or a factor from 0.001 to 1000000 (10: ten times faster), not '\(speed)'"
            )
        }
        guard !files.isEmpty else { throw ValidationError("give at least one recording") }
    }

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let logger = CLILogging.logger
        let speed = ReplaySpeed(speed)!
        let loaded = DeviceProfileLoader.loadDefault(required: devices.map { URL(fileURLWithPath: $0) })
        for problem in loaded.problems { Output.error("warning: device profile \(problem)") }
        var configuration = PipelineConfiguration(timeZone: zone)
        configuration.bindKeys = try bindKeyOptions.load(logger: logger)

        @Sendable func open(_ file: String, speed: ReplaySpeed) throws -> ReplayTransport<ContinuousClock> {
            do {
                return try ReplayTransport(path: file, speed: speed, logger: logger)
            } catch {
                Output.error(error.description)
                throw ExitCode(StoreExit.noInput)
            }
        }
        for file in files { _ = try open(file, speed: .max) }  // every header readable before anything runs

        if strict {
            var bad: [IngestProblem] = []
            for file in files {
                let report = try await PipelineRunner.replay(
                    try open(file, speed: .max),
                    catalog: loaded.catalog,
                    configuration: configuration,
                    sink: DiscardingSink(),
                    logger: logger
                )
                bad += report.badEvents
            }
            if !bad.isEmpty {
                for problem in bad { Output.error(problem.description) }
                Output.error("\(bad.count) bad line(s); nothing written (--strict)")
                throw ExitCode(StoreExit.invalidData)
            }
        }

        let document = try plan.map { try PlanFile.load($0, zone: zone) }
        let store = try await storeOptions.open(zone: zone, patients: .any)
        if let document {
            try await StoreExit.attempt {
                try await store.applyPlan(document)
            }
        }

        let connection = try mqtt.makeConnection(publisher: nil, logger: logger)
        let publisher = connection.map { mqtt.makePublisher(store: store, connection: $0, zone: zone, logger: logger) }
        // Queueing is on before the first sample is stored.
        if let publisher { try await mqtt.start(publisher) }
        var recordings: [Bridge.Recording] = []
        for file in files {
            var recording = Bridge.Recording(path: file) { try open(file, speed: speed) }
            if let bar = ProgressBar.forFile(file) {
                recording.progress = { line in bar.update(line: line) }
                recording.finished = { bar.finish() }
            }
            recordings.append(recording)
        }
        // SIGINT/SIGTERM stop reading; what was read is still stored and the summary says how far it got.
        let bridge = Bridge(
            source: .recordings(recordings),
            catalog: loaded.catalog,
            configuration: configuration,
            store: store,
            // The connection first, so that it is shut down after the publisher has drained.
            services: (connection.map { [$0] } ?? []) + (publisher.map { [$0] } ?? []),
            // A paced replay stores (and publishes) each sample as it comes, as a live device would.
            batchSize: speed == .max ? PipelineRunner.defaultBatchSize : 1,
            forceQuit: ForcedStop.handler,
            logger: logger
        )
        let started = ContinuousClock.now
        let outcome: BridgeOutcome
        do {
            outcome = try await bridge.run()
        } catch let error as CareStoreError {
            throw StoreExit.fail(error)
        }
        let elapsed = started.duration(to: .now)
        let total = outcome.report
        let stoppedIn = outcome.interruptedIn
        for problem in total.badEvents { Output.error("skipped \(problem.description)") }
        for warning in total.warnings { Output.error("warning: \(warning.description)") }
        let summary = ReplaySummary(
            files: files,
            report: total,
            inserted: outcome.inserted,
            duplicates: outcome.duplicates,
            unmatched: outcome.unmatched,
            completed: outcome.completed,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            interruptedIn: stoppedIn
        )
        print(json ? summary.json(in: zone).serialized(pretty: Output.isTerminal) : summary.text(in: zone))
        // Readings from a device's memory may be days old: the rules are evaluated from the earliest event they
        // completed (alerts are printed unless --json).
        if let earliest = outcome.completed.map(\.start).min() {
            await AlertReport.evaluate(store, from: earliest, quiet: json)
        }
        if let stoppedIn {
            Output.error(
                "interrupted during \(stoppedIn): \(summary.inserted) new sample(s) stored; replay the same files "
                    + "again to store the rest (what is stored is skipped)"
            )
        }
        if let publisher, await mqtt.report(publisher) > 0 { throw ExitCode(MQTTOptions.pendingExit) }
        if stoppedIn != nil { throw ExitCode(Self.interruptedExit) }
        if !total.devices.isEmpty, total.devices.allSatisfy({ $0.profile == nil }) {
            Output.error(Self.noDeviceClaimed(total.devices.map { $0.identity.address ?? $0.identity.key }))
            throw ExitCode(StoreExit.invalidData)
        }
    }

    /// Why a replay in which no profile claimed any device decoded nothing, and what to do about it.
    static func noDeviceClaimed(_ devices: [String]) -> String {
        let named = devices.prefix(3).joined(separator: ", ") + (devices.count > 3 ? ", …" : "")
        return "no device profile claimed a device of the recording (\(named)), so nothing was decoded: a "
            + "capture without advertisements or service discovery needs its handles named (carebridge import "
            + "btsnoop --handle 0x0012=2A9D), and a device CareBridge has no profile for needs one (carebridge "
            + "profile scaffold, then replay --devices DIR)"
    }
}
