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

    @Test func jobsStartedTogetherRunOneAtATime() async {
        let running = Mutex(0)
        let most = Mutex(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    await CPUBoundWork.run {
                        let now = running.withLock {
                            $0 += 1
                            return $0
                        }
                        most.withLock { $0 = max($0, now) }
                        // Long enough for a second thread, had one been started, to be inside too.
                        usleep(20_000)
                        running.withLock { $0 -= 1 }
                    }
                }
            }
        }
        #expect(most.withLock { $0 } == 1)
    }

    @Test func whatAJobThrowsReachesTheTestAndTheLaneGoesOn() async {
        await #expect(throws: Refused(reason: "bad seed")) {
            try await CPUBoundWork.run { () throws(Refused) -> Int in throw Refused(reason: "bad seed") }
        }
        #expect(await CPUBoundWork.run { "next" } == "next")
    }
}
