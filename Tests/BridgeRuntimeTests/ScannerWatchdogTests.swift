import BridgeCore
import BridgeRuntime
import DeviceProfiles
import Foundation
import Logging
import SampleIngest
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

/// The scanner watchdog as a service: staged recovery of a silent scanner on an injected clock, reset by any
/// advertisement, idle while discovery is paused, and part of the bridge's group (a give-up ends the run, a
/// graceful shutdown ends the watchdog).
@Suite(.timeLimit(.minutes(5))) struct ScannerWatchdogTests {
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// A scanner whose state the test sets; notes each recovery step with the clock's time.
    final class FakeScanner: SupervisedScanner {
        struct State {
            var scanner: ScannerState? = ScannerState(discovering: true, advertisements: 0)
            var steps: [(at: Duration, step: ScannerRecovery)] = []
            var questions = 0
        }
        let state = Mutex(State())
        let now: @Sendable () -> Duration
        let onGiveUp: @Sendable () -> Void

        init(now: @escaping @Sendable () -> Duration, onGiveUp: @escaping @Sendable () -> Void = {}) {
            self.now = now
            self.onGiveUp = onGiveUp
        }

        func scannerState() async -> ScannerState? {
            state.withLock {
                $0.questions += 1
                return $0.scanner
            }
        }

        func recover(_ step: ScannerRecovery) async {
            let at = now()
            state.withLock { $0.steps.append((at, step)) }
            if case .giveUp = step { onGiveUp() }
        }

        func advertise() { state.withLock { $0.scanner?.advertisements += 1 } }
        func setDiscovering(_ discovering: Bool) { state.withLock { $0.scanner?.discovering = discovering } }
        var steps: [(at: Duration, step: ScannerRecovery)] { state.withLock { $0.steps } }
    }

    final class Flag: Sendable {
        let value = Mutex(false)
    }

    /// Runs the watchdog on a manual clock; `during(tick)` runs before the clock moves from tick to tick + 1.
    func drive(
        limit: Duration,
        ticks: Int,
        during: (Int, FakeScanner) -> Void = { _, _ in }
    ) async throws -> (FakeScanner, Duration) {
        let clock = ManualClock()
        let scanner = FakeScanner(now: { clock.now.offset })
        let watchdog = ScannerWatchdog(scanner: scanner, silenceLimit: limit, clock: clock, logger: Self.quiet)
        let ended = Flag()
        let task = Task {
            try await watchdog.run()
            ended.value.withLock { $0 = true }
        }
        defer { task.cancel() }
        // The watchdog sleeps again only after it has handled the previous tick (or it has ended: given up).
        func settled() async throws -> Bool {
            try await waitUntil("the watchdog handled the tick", timeout: .seconds(180)) {
                clock.sleeperCount >= 1 || ended.value.withLock { $0 }
            }
            return !ended.value.withLock { $0 }
        }
        for tick in 0..<ticks {
            guard try await settled() else { break }
            during(tick, scanner)
            clock.advance(by: watchdog.period)
        }
        _ = try await settled()
        return (scanner, watchdog.period)
    }

    @Test func periodIsAQuarterOfTheLimitAtMostFiveSeconds() {
        let clock = ManualClock()
        let scanner = FakeScanner(now: { .zero })
        #expect(
            ScannerWatchdog(scanner: scanner, silenceLimit: .seconds(8), clock: clock, logger: Self.quiet).period
                == .seconds(2)
        )
        #expect(
            ScannerWatchdog(scanner: scanner, silenceLimit: .seconds(90), clock: clock, logger: Self.quiet).period
                == .seconds(5)
        )
    }

    @Test func silentScannerIsRestartedThenPowerCycledThenGivenUp() async throws {
        let (scanner, _) = try await drive(limit: .seconds(8), ticks: 14)
        let steps = scanner.steps
        #expect(steps.map(\.at) == [.seconds(8), .seconds(16), .seconds(24)])
        #expect(steps.map(\.step) == [.restartDiscovery, .powerCycle, .giveUp(silence: .seconds(8))])
        #expect(
            scanner.state.withLock { $0.questions } == 12,
            "asked once per period (the service manager's heartbeat) until it gave up at 24 s, then no more"
        )
    }

    @Test func afterGivingUpItTakesNoFurtherStepAndAsksNoMore() async throws {
        // A run that ends slowly after the give-up (under load): 40 periods later still exactly one give-up.
        let (scanner, _) = try await drive(limit: .seconds(8), ticks: 52)
        #expect(scanner.steps.map(\.step) == [.restartDiscovery, .powerCycle, .giveUp(silence: .seconds(8))])
        #expect(scanner.state.withLock { $0.questions } == 12)
    }

    @Test func anAdvertisementResetsTheSilenceAndTheStages() async throws {
        // Restart at 8 s; an advertisement after 12 s, seen at 14 s; silence again → a restart (not a power cycle)
        // at 22 s.
        let (scanner, _) = try await drive(limit: .seconds(8), ticks: 11) { tick, scanner in
            if tick == 6 { scanner.advertise() }
        }
        #expect(scanner.steps.map(\.at) == [.seconds(8), .seconds(22)])
        #expect(scanner.steps.map(\.step) == [.restartDiscovery, .restartDiscovery])
    }

    @Test func silenceCountsOnlyWhileDiscovering() async throws {
        // Paused (a connection attempt) from 0 s to 30 s: no step; discovering again → the first step 8 s later.
        let (scanner, _) = try await drive(limit: .seconds(8), ticks: 20) { tick, scanner in
            if tick == 0 { scanner.setDiscovering(false) }
            if tick == 15 { scanner.setDiscovering(true) }
        }
        #expect(scanner.steps.map(\.at) == [.seconds(38)])
        #expect(scanner.steps.map(\.step) == [.restartDiscovery])
    }

    @Test func noTransportRunMeansNothingToWatch() async throws {
        let (scanner, _) = try await drive(limit: .seconds(8), ticks: 14) { tick, scanner in
            if tick == 0 { scanner.state.withLock { $0.scanner = nil } }
        }
        #expect(scanner.steps.isEmpty)
    }

    /// A live transport that yields nothing until it is stopped or fails.
    final class IdleTransport: DeviceTransport {
        let stream: AsyncThrowingStream<TransportEvent, any Error>
        let continuation: AsyncThrowingStream<TransportEvent, any Error>.Continuation
        init() { (stream, continuation) = AsyncThrowingStream.makeStream() }
        func events() -> AsyncThrowingStream<TransportEvent, any Error> { stream }
    }

    struct Wedged: Error, Equatable {}

    @Test func inTheBridgeGroupAGiveUpEndsTheRunWithTheTransportsError() async throws {
        let transport = IdleTransport()
        let started = ContinuousClock.now
        let scanner = FakeScanner(
            now: { started.duration(to: .now) },
            onGiveUp: { transport.continuation.finish(throwing: Wedged()) }
        )
        let bridge = Bridge(
            source: .live(transport) { _ in transport.continuation.finish() },
            catalog: DeviceCatalog(profiles: []),
            configuration: PipelineConfiguration(timeZone: TimeZone(identifier: "UTC")!),
            store: nil,
            services: [
                ScannerWatchdog(
                    scanner: scanner,
                    silenceLimit: .milliseconds(200),
                    clock: ContinuousClock(),
                    logger: Self.quiet
                )
            ],
            signals: [],
            logger: Self.quiet
        )
        await #expect(throws: Wedged.self) { _ = try await bridge.run() }
        let steps = scanner.steps.map(\.step)
        #expect(steps.prefix(2) == [.restartDiscovery, .powerCycle])
        guard steps.count == 3, case .giveUp(let silence) = steps[2] else {
            Issue.record("steps: \(steps)")
            return
        }
        #expect(silence >= .milliseconds(200))
    }

    @Test func inTheBridgeGroupGracefulShutdownEndsTheWatchdog() async throws {
        let transport = IdleTransport()
        let scanner = FakeScanner(now: { .zero })
        let bridge = Bridge(
            source: .live(transport) { _ in transport.continuation.finish() },
            catalog: DeviceCatalog(profiles: []),
            configuration: PipelineConfiguration(timeZone: TimeZone(identifier: "UTC")!),
            store: nil,
            services: [
                ScannerWatchdog(
                    scanner: scanner,
                    silenceLimit: .seconds(90),
                    clock: ContinuousClock(),
                    logger: Self.quiet
                )
            ],
            duration: .milliseconds(300),
            signals: [],
            logger: Self.quiet
        )
        // The run ends only when every service has: a watchdog that ignored the shutdown would hang it.
        _ = try await bridge.run()
        #expect(scanner.steps.isEmpty)
    }
}
