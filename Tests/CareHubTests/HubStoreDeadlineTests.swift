import Logging
import PostgresNIO
import TestSupport
import Testing

@testable import CareHub

/// The deadline of every hub database call, on a clock the test moves: it answers 503 in time when PostgreSQL does
/// not, and it stops as soon as the work answered (no timer left sleeping for the rest of its ten seconds).
@Suite struct HubStoreDeadlineTests {
    /// A store whose client is never run: the work here does not touch PostgreSQL.
    func store(clock: ManualClock) -> HubStore {
        let client = PostgresClient(
            configuration: .init(host: "127.0.0.1", username: "nobody", password: nil, database: nil, tls: .disable),
            backgroundLogger: Logger(label: "test")
        )
        return HubStore(client: client, deadline: .seconds(10), clock: clock, logger: Logger(label: "test"))
    }

    @Test func theDeadlineTimerStopsOnceTheWorkAnswered() async throws {
        let clock = ManualClock()
        let value = try await store(clock: clock).database("cannot add") {
            // The timer sleeps before the work answers.
            try await clock.waitForSleepers(1)
            return 41 + 1
        }
        #expect(value == 42)
        try await waitUntil("the deadline's timer is cancelled") { clock.sleeperCount == 0 }
    }

    @Test func workPastTheDeadlineFailsAsTheDatabaseNotAnswering() async throws {
        let clock = ManualClock()
        let store = store(clock: clock)
        async let outcome: Result<Int, HubError> = {
            do throws(HubError) {
                return .success(
                    try await store.database("cannot wait") {
                        try await Task.sleep(for: .seconds(3600))
                        return 1
                    }
                )
            } catch {
                return .failure(error)
            }
        }()
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(10))
        guard case .failure(let error) = await outcome else {
            Issue.record("the work answered past its deadline")
            return
        }
        #expect(error.code == .database)
        #expect(error.message.contains("PostgreSQL did not answer within 10"), "\(error.message)")
    }
}
