import Foundation
import TestSupport
import Testing

@Suite struct ChildProcessSlotsTests {
    @Test func aWaiterTakesTheSlotThatIsGivenBack() async {
        let slots = ChildProcessSlots(limit: 2)
        await slots.acquire()
        await slots.acquire()
        #expect(await slots.occupied == 2)
        let third = Task { await slots.acquire() }
        await slots.release()
        await third.value
        #expect(await slots.occupied == 2, "the freed slot went to the waiter, not back to the pool")
        await slots.release()
        await slots.release()
        #expect(await slots.occupied == 0)
    }

    @Test func childrenRunToTheEndThroughTwoSlotsAndGiveEverySlotBack() async throws {
        let slots = ChildProcessSlots(limit: 2)
        let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
            for index in 0..<6 {
                group.addTask {
                    try await ChildProcess.run(
                        URL(fileURLWithPath: "/bin/sh"),
                        ["-c", "exit \(index)"],
                        slots: slots
                    ).status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.sorted() == [0, 1, 2, 3, 4, 5])
        #expect(await slots.occupied == 0)
    }

    @Test func aChildThatCannotStartGivesItsSlotBack() async {
        let slots = ChildProcessSlots(limit: 1)
        await #expect(throws: (any Error).self) {
            try await ChildProcess.run(URL(fileURLWithPath: "/nonexistent/carebridge"), [], slots: slots)
        }
        #expect(await slots.occupied == 0)
    }
}
