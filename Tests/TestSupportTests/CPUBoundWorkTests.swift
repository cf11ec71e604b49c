import Foundation
import Synchronization
import TestSupport
import Testing

@Suite struct CPUBoundWorkTests {
    struct Refused: Error, Equatable {
        var reason: String
    }

    @Test func aJobRunsAtTheLanesLowerPriorityAndReturnsItsValue() async {
        let niceness = await CPUBoundWork.run { CPUBoundWork.currentThreadsNiceness() }
        // A runner started under `nice` already may sit higher still; never lower than the lane's.
        #expect(niceness >= CPUBoundWork.niceness)
        #expect(await CPUBoundWork.run { (1...100).reduce(0, +) } == 5050)
    }

    /// How many jobs are inside at once, and the most seen.
    final class Occupancy: Sendable {
        private let state = Mutex((now: 0, most: 0))

        func enter() { state.withLock { $0 = (now: $0.now + 1, most: max($0.most, $0.now + 1)) } }
        func leave() { state.withLock { $0.now -= 1 } }
        var most: Int { state.withLock { $0.most } }
    }

    @Test func jobsStartedTogetherRunOneAtATime() async {
        let occupancy = Occupancy()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    await CPUBoundWork.run {
                        occupancy.enter()
                        // Long enough for a second thread, had one been started, to be inside too.
                        usleep(20_000)
                        occupancy.leave()
                    }
                }
            }
        }
        #expect(occupancy.most == 1)
    }

    @Test func whatAJobThrowsReachesTheTestAndTheLaneGoesOn() async {
        await #expect(throws: Refused(reason: "bad seed")) {
            try await CPUBoundWork.run { () throws(Refused) -> Int in throw Refused(reason: "bad seed") }
        }
        #expect(await CPUBoundWork.run { "next" } == "next")
    }
}
