public import BridgeCore
public import Logging
public import ServiceLifecycle

/// The scanner watchdog as a service of the bridge's group: no advertisement at all for ``silenceLimit`` while
/// the transport discovers → restart discovery; still nothing for another ``silenceLimit`` → power-cycle the
/// adapter; still nothing → give up (the transport's stream ends with an error, so a service manager restarts the
/// bridge), and the watchdog ends. Any advertisement resets the stages.
///
/// It asks the scanner every `min(silenceLimit / 4, 5 s)`; each answer also tells the service manager that the
/// transport's loop is alive (systemd's `WATCHDOG=1`). Time is the injected clock's, so tests drive it without
/// waiting. Graceful shutdown ends it.
public struct ScannerWatchdog<C: Clock>: Service where C.Duration == Duration {
    public var scanner: any SupervisedScanner
    public var silenceLimit: Duration
    public var clock: C
    public var logger: Logger

    public init(scanner: any SupervisedScanner, silenceLimit: Duration, clock: C, logger: Logger) {
        self.scanner = scanner
        self.silenceLimit = silenceLimit
        self.clock = clock
        self.logger = logger
    }

    /// The silence `run`, `record` and `scan` allow unless told otherwise.
    public static var defaultSilenceLimit: Duration { .seconds(90) }

    /// How often the scanner is asked.
    public var period: Duration { min(silenceLimit / 4, .seconds(5)) }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var tracker = Tracker(silenceLimit: silenceLimit, now: clock.now)
            while !Task.isCancelled {
                do { try await clock.sleep(for: period) } catch { return }
                guard let state = await scanner.scannerState() else { continue }
                guard let step = tracker.observe(state, at: clock.now) else { continue }
                logger.warning(
                    "scanner watchdog: no advertisement",
                    metadata: ["silence": "\(tracker.lastSilence)", "stage": "\(tracker.stage)"]
                )
                await scanner.recover(step)
                // Given up: the transport's run ends with the error; there is nothing left to watch.
                if case .giveUp = step { return }
            }
        }
    }

    /// The stages, apart from the clock and the scanner.
    struct Tracker {
        let silenceLimit: Duration
        /// When the silence began: the last advertisement, discovery (re)started, or the last recovery step.
        var since: C.Instant
        var advertisements: Int?
        var stage = 0
        var lastSilence: Duration = .zero

        init(silenceLimit: Duration, now: C.Instant) {
            self.silenceLimit = silenceLimit
            self.since = now
        }

        /// The step to take now, if any.
        mutating func observe(_ state: ScannerState, at now: C.Instant) -> ScannerRecovery? {
            defer { advertisements = state.advertisements }
            if let previous = advertisements, previous != state.advertisements {
                since = now
                stage = 0
            }
            // Silence counts only while discovering (not while paused for a connection attempt).
            guard state.discovering else {
                since = now
                return nil
            }
            lastSilence = since.duration(to: now)
            guard lastSilence >= silenceLimit else { return nil }
            stage += 1
            since = now
            switch stage {
            case 1: return .restartDiscovery
            case 2: return .powerCycle
            default: return .giveUp(silence: lastSilence)
            }
        }
    }
}
