public import Foundation
public import Logging
import NIOCore
public import ServiceLifecycle
import Synchronization

/// The log of the TLS handshakes a server refused, shared by all its connections (every event loop's): each
/// refusal is counted (`counted`, the hub's metrics), the first from a peer's address is logged at once as a
/// warning (`TLS handshake refused peer=ADDRESS:PORT reason=…`), and the ones after it within ``window`` are summed
/// up in one warning when the window is over (`19 more refused TLS handshakes from ADDRESS in the last 60 s: …`), so
/// a client retrying a refused certificate every few seconds for days does not flood the journal
/// (``TLSRefusalLimiter`` decides).
///
/// As a service it logs each summary when its window ends (on the injected clock), and the open ones when the
/// server stops; not run, a summary is logged at the peer's next refusal after its window.
public final class TLSRefusalLog: Service, Sendable {
    /// How long after a peer's logged refusal its next ones are only counted.
    public static let defaultWindow: Duration = .seconds(60)
    /// How many peers' windows are kept at once; a new peer beyond them ends the oldest window early.
    public static let defaultCapacity = 1024

    let logger: Logger
    /// The wall clock certificates' dates are compared with.
    let now: @Sendable () -> Date
    private let counted: @Sendable (TLSRefusal) -> Void
    private let elapsed: @Sendable () -> Duration
    private let sleep: @Sendable (Duration) async throws -> Void
    private let limiter: Mutex<TLSRefusalLimiter>
    private let opened: AsyncStream<Void>
    private let opening: AsyncStream<Void>.Continuation

    /// - Parameters:
    ///   - window: how long after a peer's logged refusal its next ones are only counted.
    ///   - capacity: how many peers are followed at once.
    ///   - clock: the clock the windows run on.
    ///   - now: the wall clock (a certificate's dates).
    ///   - counted: called with every refusal, logged or not (metrics).
    public init(
        window: Duration = defaultWindow,
        capacity: Int = defaultCapacity,
        clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger,
        counted: @escaping @Sendable (TLSRefusal) -> Void = { _ in }
    ) {
        self.logger = logger
        self.now = now
        self.counted = counted
        (elapsed, sleep) = Self.timing(on: clock)
        limiter = Mutex(TLSRefusalLimiter(window: window, capacity: capacity))
        (opened, opening) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The time since the log was made, and a sleep until such a time, on `clock`.
    private static func timing<C: Clock<Duration>>(
        on clock: C
    ) -> (@Sendable () -> Duration, @Sendable (Duration) async throws -> Void) {
        let origin = clock.now
        return (
            { origin.duration(to: clock.now) },
            { try await clock.sleep(until: origin.advanced(by: $0), tolerance: nil) }
        )
    }

    /// One refused handshake from `peer`: counted, and logged now or summed up later.
    func refused(_ refusal: TLSRefusal, peer: SocketAddress?) {
        counted(refusal)
        let address = peer?.ipAddress ?? "unknown"
        let time = elapsed()
        let (log, due) = limiter.withLock { $0.refused(peer: address, reason: refusal.words, at: time) }
        emit(due)
        guard log else { return }
        logger.warning(
            "TLS handshake refused",
            metadata: ["peer": "\(address):\(peer?.port ?? 0)", "reason": "\(refusal.words)"]
        )
        opening.yield()
    }

    /// Logs each summary when its window ends; at a graceful shutdown (or cancellation), those still open.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            for await _ in self.opened {
                while let end = self.limiter.withLock({ $0.nextEnd }) {
                    do { try await self.sleep(end) } catch { return }
                    let time = self.elapsed()
                    self.emit(self.limiter.withLock { $0.ended(at: time) })
                }
            }
        }
        emit(limiter.withLock { $0.closeAll() })
    }

    private func emit(_ summaries: [TLSRefusalLimiter.Summary]) {
        let window = limiter.withLock { $0.window }
        for summary in summaries {
            let reasons = summary.reasons.map { $0.count == 1 ? $0.words : "\($0.words) (\($0.count) times)" }
            let plural = summary.count == 1 ? "" : "s"
            let text =
                "\(summary.count) more refused TLS handshake\(plural) from \(summary.peer) in the last "
                + "\(window.components.seconds) s: \(reasons.joined(separator: "; "))"
            logger.warning(
                "\(text)",
                metadata: ["peer": "\(summary.peer)", "count": "\(summary.count)"]
            )
        }
    }
}
