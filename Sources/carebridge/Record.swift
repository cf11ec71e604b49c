import ArgumentParser
import BlueZTransport
import BridgeCore
import BridgeFoundation
import BridgeRuntime
import Foundation
import Logging
import SampleIngest
import SessionReplay

struct Record: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Capture a live session into a recording file (Recordings/ format).",
        discussion: """
            Discovers, connects and subscribes exactly as `run` does, but writes every transport event \
            (advertisements, connections, services, reads, notifications, indications, disconnections) to FILE \
            instead of the store. `carebridge replay FILE` later gives exactly the samples a live run would \
            have stored. With --device only that address is recorded (and connected). Stops on SIGINT/SIGTERM \
            or after --duration seconds. Redact before sharing: `carebridge recording redact FILE`.

            Examples:
              carebridge record --out weigh-in.jsonl --device C4:7C:8D:6A:3E:10
              carebridge record --out broadcast.jsonl --duration 60

            \(BlueZExit.help)
            """
    )

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The recording to write (mode 0600); replaces an existing file only if at least one event was recorded.",
            valueName: "file"
        )
    )
    var out: String

    @Option(name: .long, help: ArgumentHelp("Only record this device.", valueName: "address"))
    var device: String?

    @Option(name: .long, help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"))
    var duration: Double?

    @OptionGroup var bluez: BlueZOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let device, BluetoothAddress(device) == nil {
            throw ValidationError("--device must be a Bluetooth address such as C4:7C:8D:6A:3E:10, not '\(device)'")
        }
        if let duration { try NumericOption.checkPositive(duration, "--duration", atMost: NumericOption.tenYears) }
    }

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        var logger = Logger(label: "carebridge", factory: { TerminalText.logHandler(label: $0) })
        logger.logLevel =
            ProcessInfo.processInfo.environment["CAREBRIDGE_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        var configuration = bluez.configuration()
        configuration.onlyDevice = device.flatMap(BluetoothAddress.init)?.description
        configuration.timeZone = zone
        let catalog = bluez.catalog()
        let live = BlueZTransport(configuration: configuration, policy: catalog, logger: logger)
        let shutdown = live.shutdown
        let recorder: RecordingTransport
        do {
            recorder = try RecordingTransport(
                recording: live,
                to: out,
                recordedAt: Date(),
                timeZone: zone,
                extra: ["adapter": .string(bluez.adapter ?? "default")],
                logger: logger
            )
        } catch {
            Output.error("cannot write recording \(out): \(error)")
            throw ExitCode(StoreExit.storeUnavailable)
        }
        // The recorder writes every event the bridge reads; nothing is stored.
        let bridge = Bridge(
            source: .live(recorder) { _ in shutdown.request() },
            catalog: catalog,
            configuration: PipelineConfiguration(timeZone: zone),
            store: nil,
            services: [
                ScannerWatchdog(
                    scanner: live.scanner,
                    silenceLimit: ScannerWatchdog<ContinuousClock>.defaultSilenceLimit,
                    clock: ContinuousClock(),
                    logger: logger
                )
            ],
            duration: duration.map { .milliseconds(Int64(($0 * 1000).rounded())) },
            forceQuit: ForcedStop.handler,
            logger: logger
        )
        let count: Int
        do {
            count = try await bridge.run().report.events
        } catch let error as TransportError {
            if !recorder.close(keepEmpty: false) {
                Output.error("nothing was recorded; \(out) was not written (an existing file is unchanged)")
            }
            throw BlueZExit.fail(error)
        }
        guard recorder.close() else {
            Output.error("cannot write recording \(out)")
            throw ExitCode(StoreExit.storeUnavailable)
        }
        logger.info("recording written", metadata: ["file": "\(out)", "events": "\(count)"])
    }
}
