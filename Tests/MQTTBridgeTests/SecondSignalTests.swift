import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A replay whose outbox drain hangs on a broker that does not answer (frozen with SIGSTOP): one SIGINT waits
/// for the drain, a second one ends the process at once (130) and leaves what was not published in the outbox.
@Suite(
    "replay --mqtt stopped by one or two signals",
    .serialized,
    .enabled(if: MosquittoBroker.testsEnabled, "needs mosquitto; \(MosquittoBroker.installHint)")
)
struct SecondSignalTests {
    static let recording = PackageRoot.recording("heart-rate-strap-20-minutes.jsonl")

    func pending(_ store: String) async throws -> Int {
        let result = try await ChildProcess.run(
            PackageRoot.carebridgeExecutable,
            ["outbox", "--store", store, "--json"]
        )
        let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        return try #require(object?["pending"] as? Int, "\(result.standardOutput) \(result.standardError)")
    }

    /// Starts a paced replay publishing to `broker`, waits until samples flow, freezes the broker, waits until
    /// samples queue behind it, then sends the first SIGINT; the drain that follows cannot finish.
    func replayWithAHungDrain(
        _ broker: MosquittoBroker,
        scratch: ScratchDirectory
    ) async throws -> (BridgeProcess, store: String) {
        let subscriber = try await MosquittoSubscriber(broker: broker, topic: "carebridge/+/+", count: 100_000)
        let store = scratch.path("store.sqlite")
        // 20 minutes of heart rate at their own pace: a sample a second for 20 min, long enough for the looks at the
        // outbox (each a `carebridge outbox` run that waits its turn among the suite's children) to come first (at
        // 10 times the pace, the whole replay once ended first on a loaded machine).
        let replay = try BridgeProcess(
            [
                "replay", "--store", store, "--time-zone", "UTC", "--speed", "1", "--json",
                "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-wait", "600", Self.recording,
            ],
            directory: scratch.url
        )
        try await waitUntil("samples reach the subscriber") { subscriber.received.count >= 5 }
        broker.pause()
        try await waitUntil("samples queue behind the frozen broker") { try await pending(store) > 0 }
        replay.send(SIGINT)
        // The replay stops reading; the publisher now waits up to --mqtt-wait for a broker that does not answer.
        // Once the replay says it stops gracefully, the signal has been counted: the next one is a second signal.
        // That it waits is proved later: by the second signal's message (only a process still stopping prints it),
        // or by an empty outbox once the broker answers again (the frozen broker acknowledged nothing so far).
        try await waitUntil("the replay acknowledges the first SIGINT") {
            replay.stderr.contains("stopping gracefully") || !replay.isRunning
        }
        #expect(replay.isRunning, "one SIGINT waits for the outbox to drain: \(replay.stderr)")
        return (replay, store)
    }

    @Test func aSecondSIGINTEndsAHungDrainAtOnceAndKeepsTheRestQueued() async throws {
        let scratch = try ScratchDirectory("mqtt-bridge-")
        let broker = try MosquittoBroker()
        try broker.start()
        defer {
            broker.resume()
            broker.stop()
        }
        let (replay, store) = try await replayWithAHungDrain(broker, scratch: scratch)
        let sent = ContinuousClock.now
        replay.send(SIGINT)
        try await waitUntil("the replay ends after the second SIGINT", timeout: .seconds(120)) { !replay.isRunning }
        let output = try await replay.wait()
        #expect(sent.duration(to: .now) < .seconds(15))
        #expect(output.exited, "exited, not killed by the signal")
        #expect(output.status == 130, "\(output.stderr)")
        #expect(output.stderr.contains("SIGINT while stopping: exiting now (130)"), "\(output.stderr)")
        // Nothing stored is lost: what the frozen broker never acknowledged stays queued for the next run.
        #expect(try await pending(store) > 0)
    }

    @Test func oneSIGINTWaitsForTheDrainAndFinishesIt() async throws {
        let scratch = try ScratchDirectory("mqtt-bridge-")
        let broker = try MosquittoBroker()
        try broker.start()
        defer { broker.stop() }
        let (replay, store) = try await replayWithAHungDrain(broker, scratch: scratch)
        broker.resume()
        try await waitUntil("the replay ends once the broker answers", timeout: .seconds(180)) { !replay.isRunning }
        let output = try await replay.wait()
        #expect(output.exited)
        // 130: the replay was interrupted (documented); the drain itself finished.
        #expect(output.status == 130, "\(output.stderr)")
        #expect(!output.stderr.contains("while stopping"), "\(output.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        #expect(summary["interrupted"] != nil)
        #expect(try await pending(store) == 0, "every stored sample was published")
    }
}
