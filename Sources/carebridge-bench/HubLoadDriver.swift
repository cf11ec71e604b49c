import CareHub
import Foundation

/// Drives simulated bridges against a running hub: each bridge posts its day's batches in order through the
/// bridge's own ``HubClient`` (a connection per batch, as `carebridge sync push` makes), at most `concurrency`
/// bridges at a time; a failed post is retried (after `retryDelay`) like the outbox does, up to `attempts` times.
struct HubLoadDriver: Sendable {
    /// One bridge: its day and the file holding its token.
    struct Bridge: Sendable {
        var day: SimulatedBridgeDay
        var tokenFile: String
    }

    /// What the bridges sent and how long it took.
    struct Result: Sendable {
        /// Readings the hub confirmed.
        var rows: Int
        var batches: Int
        /// From the first post to the last receipt.
        var seconds: Double
        /// Each confirmed batch's round trip (the post and its receipt).
        var latencies: LatencyDistribution
        /// Posts that failed and were sent again.
        var retries: Int
        /// Readings per bridge name, as confirmed.
        var sent: [String: Int]
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    var hub: String
    var caFile: String?
    var concurrency: Int
    var attempts = 5
    var retryDelay: Duration = .seconds(1)
    /// Progress lines (stderr in the benchmark).
    var progress: @Sendable (String) -> Void = { _ in }

    /// Runs every bridge to the end of its day.
    /// - Throws: ``Failure`` when a batch still fails after `attempts` posts, or a token file cannot be read.
    func run(_ bridges: [Bridge]) async throws -> Result {
        let clock = ContinuousClock()
        let started = clock.now
        var latencies: [Double] = []
        var retries = 0
        var sent: [String: Int] = [:]
        var batches = 0
        try await withThrowingTaskGroup(of: (String, [Double], Int, Int).self) { group in
            var waiting = bridges.makeIterator()
            var running = 0
            func startNext() {
                guard let bridge = waiting.next() else { return }
                running += 1
                group.addTask { try await drive(bridge) }
            }
            for _ in 0..<max(concurrency, 1) { startNext() }
            var done = 0
            while running > 0, let (name, times, rows, failed) = try await group.next() {
                running -= 1
                done += 1
                latencies += times
                retries += failed
                batches += times.count
                sent[name] = rows
                if done % max(bridges.count / 10, 1) == 0 || done == bridges.count {
                    progress("\(done)/\(bridges.count) bridges done, \(sent.values.reduce(0, +)) readings")
                }
                startNext()
            }
        }
        return Result(
            rows: sent.values.reduce(0, +),
            batches: batches,
            seconds: seconds(clock.now - started),
            latencies: LatencyDistribution(latencies),
            retries: retries,
            sent: sent
        )
    }

    /// One bridge's day, batch after batch: its name, each batch's round trip, readings confirmed, retries.
    private func drive(_ bridge: Bridge) async throws -> (String, [Double], Int, Int) {
        let client: HubClient
        do {
            client = try HubClient(
                hub: hub,
                credential: .tokenFile(bridge.tokenFile),
                caFile: caFile,
                timeout: .seconds(60)
            )
        } catch {
            throw Failure(description: "bridge \(bridge.day.bridge): \(error)")
        }
        let clock = ContinuousClock()
        var times: [Double] = []
        var rows = 0
        var retries = 0
        for index in 0..<bridge.day.batchCount {
            let batch = bridge.day.batch(index)
            var attempt = 1
            while true {
                let start = clock.now
                do {
                    let receipt = try await client.push(batch)
                    times.append(seconds(clock.now - start))
                    rows += receipt.received
                    break
                } catch {
                    guard attempt < attempts else {
                        throw Failure(
                            description: "bridge \(bridge.day.bridge), batch \(index + 1): \(attempt) posts failed, "
                                + "the last with \(error)"
                        )
                    }
                    attempt += 1
                    retries += 1
                    try await Task.sleep(for: retryDelay)
                }
            }
        }
        return (bridge.day.bridge, times, rows, retries)
    }
}
