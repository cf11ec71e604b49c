import ArgumentParser
import BridgeFoundation
import CareStore
import Logging
import MQTTBridge
import Synchronization

/// What the push commands (`sync push`, `nightscout push`, `fhir push`) and `run`'s uploads share: the receiver's
/// client from the options, the outbox service with queueing enabled, and (for the sample uploads) one drain that
/// reports and exits the same way for every receiver.
enum UploadPush {
    /// The outbox service delivering `channel`, its queueing enabled first (before `run` stores a sample).
    /// - Throws: a store failure as its exit.
    static func outbox<Channel: QueueingOutboxChannel>(
        _ channel: Channel,
        store: CareStore,
        drainTimeout: Duration,
        logger: Logger
    ) async throws -> OutboxService<Channel> {
        try await StoreExit.attempt { try await channel.enable() }
        return OutboxService(channel: channel, changes: store.changes(), drainTimeout: drainTimeout, logger: logger)
    }

    /// What `make` returns: a receiver's client from the command's options.
    /// - Throws: `ValidationError` naming `options` (`--url / --secret-file: …`) when `make` fails.
    static func client<Client>(options: String, _ make: () async throws -> Client) async throws -> Client {
        do {
            return try await make()
        } catch {
            throw ValidationError("\(options): \(error)")
        }
    }

    /// Drains `outbox` once: until nothing waits, `--timeout` passed, or the receiver refused the credential.
    /// Prints what was sent (or `--json`), reports the waiting count on standard error as it changes.
    /// - Parameters:
    ///   - receiver: the receiver as a sentence names it (`Nightscout`, `the FHIR server`).
    ///   - items: what the channel's items are called, for a count (`"3 glucose readings"`).
    /// - Throws: `ExitCode(77)` when the receiver refused the credential, `ExitCode(75)` when something waits.
    static func drain<Channel: SampleBatchChannel>(
        _ outbox: OutboxService<Channel>,
        receiver: String,
        items: (Int) -> String,
        options: UploadPushOptions
    ) async throws {
        let progress = ProgressLine(receiver: receiver)
        let left = await outbox.drain(timeout: .seconds(options.timeout)) { pending in progress.report(pending) }
        await outbox.stop()
        let sent = await outbox.channel.sent
        let skipped = await outbox.channel.skipped
        let refusal = await outbox.channel.refusal
        if options.json {
            var object: JSONObject = ["sent": .int(sent), "skipped": .int(skipped), "pending": .int(left)]
            if let refusal { object["refused"] = .string(refusal) }
            print(JSONValue.object(object).serialized())
        } else {
            let dropped = skipped == 0 ? "" : "; \(skipped) not sent (quarantined, deleted or unassigned)"
            print("sent \(items(sent)) to \(receiver)\(dropped); \(max(left, 0)) waiting")
        }
        if let refusal {
            Output.error("\(refusal); \(entries(max(left, 0))) \(left == 1 ? "stays" : "stay") queued")
            throw ExitCode(77)
        }
        if left != 0 {
            Output.error("\(entries(left)) \(left == 1 ? "is" : "are") still waiting for \(receiver); push again later")
            throw ExitCode(75)
        }
    }

    /// `1 entry`, `2 entries`.
    static func entries(_ count: Int) -> String { "\(count) entr\(count == 1 ? "y" : "ies")" }

    /// `<receiver>: N entries waiting` on standard error whenever the count changes (progress of a long push).
    final class ProgressLine: Sendable {
        let receiver: String
        private let last = Mutex<Int?>(nil)

        init(receiver: String) { self.receiver = receiver }

        func report(_ pending: Int) {
            let changed = last.withLock { last in
                defer { last = pending }
                return last != pending
            }
            if changed, pending > 0 { Output.error("\(receiver): \(UploadPush.entries(pending)) waiting") }
        }
    }
}
