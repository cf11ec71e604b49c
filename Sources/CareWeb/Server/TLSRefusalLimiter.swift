/// Which refused TLS handshakes to log: the first from a peer (its IP address) at once; the ones after it within
/// ``window`` counted, and summed up once the window is over. Pure: the time is given (any fixed origin), nothing
/// is logged here (``TLSRefusalLog`` does).
///
/// No refusal leaves the count: a window's summary is due when the window ends (``ended(at:)``), at the peer's next
/// refusal after it, when a new peer needs the room of the oldest window (at most ``capacity`` peers are followed,
/// so many peers cannot grow it without bound), and at the end (``closeAll()``).
struct TLSRefusalLimiter: Sendable {
    /// The refusals of one peer that were counted instead of logged.
    struct Summary: Sendable, Equatable {
        struct Reason: Sendable, Equatable {
            var words: String
            var count: Int
        }

        var peer: String
        /// Each reason with its count, in the order first seen.
        var reasons: [Reason]

        var count: Int { reasons.reduce(0) { $0 + $1.count } }
    }

    private struct Window {
        var start: Duration
        var counted: [Summary.Reason] = []

        mutating func count(_ reason: String) {
            if let index = counted.firstIndex(where: { $0.words == reason }) {
                counted[index].count += 1
            } else {
                counted.append(.init(words: reason, count: 1))
            }
        }
    }

    let window: Duration
    let capacity: Int
    private var windows: [String: Window] = [:]

    /// - Parameters:
    ///   - window: how long after a peer's logged refusal its next ones are counted.
    ///   - capacity: how many peers are followed at once (at least 1).
    init(window: Duration, capacity: Int) {
        self.window = window
        self.capacity = max(1, capacity)
    }

    /// How many peers are followed now.
    var peerCount: Int { windows.count }

    /// When the oldest window ends; nil when there is none.
    var nextEnd: Duration? { windows.values.map(\.start).min().map { $0 + window } }

    /// A refusal from `peer` at `now`.
    /// - Returns: whether to log it now, and the summaries due: the peer's own window if it ended, or the oldest
    ///   window, closed early to make room for a new peer.
    mutating func refused(peer: String, reason: String, at now: Duration) -> (log: Bool, due: [Summary]) {
        var due: [Summary] = []
        if let open = windows[peer] {
            if now < open.start + window {
                windows[peer]?.count(reason)
                return (false, [])
            }
            windows[peer] = nil
            due += Self.summary(peer, open)
        } else if windows.count >= capacity,
            let oldest = windows.min(by: { $0.value.start < $1.value.start })
        {
            windows[oldest.key] = nil
            due += Self.summary(oldest.key, oldest.value)
        }
        windows[peer] = Window(start: now)
        return (true, due)
    }

    /// Closes the windows over at `now`.
    /// - Returns: the summaries of those that counted refusals, oldest first.
    mutating func ended(at now: Duration) -> [Summary] {
        let over = windows.filter { now >= $0.value.start + window }.sorted { $0.value.start < $1.value.start }
        for (peer, _) in over { windows[peer] = nil }
        return over.flatMap { Self.summary($0.key, $0.value) }
    }

    /// Closes every window (the server stops).
    /// - Returns: the summaries of those that counted refusals, oldest first.
    mutating func closeAll() -> [Summary] {
        defer { windows = [:] }
        return windows.sorted { $0.value.start < $1.value.start }.flatMap { Self.summary($0.key, $0.value) }
    }

    private static func summary(_ peer: String, _ window: Window) -> [Summary] {
        window.counted.isEmpty ? [] : [Summary(peer: peer, reasons: window.counted)]
    }
}
