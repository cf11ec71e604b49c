import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// CPU-bound test work (fuzzing every decoder 100 000 times, writing a 20 MB capture) run one job at a time on a
/// thread of its own, at a lower scheduling priority, off Swift's cooperative pool.
///
/// On a 2-core machine the cooperative pool has two threads. Fuzz cases run straight on the pool held both for
/// three minutes, and meanwhile every test that waits with a deadline (a manual clock's sleepers, a broker's
/// answer, a bridge's shutdown) timed out without having been scheduled. Here a job waits its turn without
/// holding a pool thread, and while it runs the kernel gives the pool's threads first call on a core (the lane's
/// thread runs at nice 5), so heavy work gives way to tests that wait on time. At nice 10 the fuzz suites finished
/// last in a full run (1,508 s of 1,580 s on 2 cores), getting a tenth of a core while anything else ran.
package enum CPUBoundWork {
    /// One job at a time: two would take both cores of a small machine again.
    private static let lane = ChildProcessSlots(limit: 1)

    /// The nice value of the lane's thread (0 is the test runner's own; higher yields to it).
    package static let niceness: Int32 = 5

    /// Runs `body` on the lane and returns what it returned, or throws what it threw.
    package static func run<T: Sendable, E: Error>(
        _ body: @escaping @Sendable () throws(E) -> T
    ) async throws(E) -> T {
        await lane.acquire()
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                lowerThisThreadsPriority()
                continuation.resume(returning: Result(catching: body))
            }
        }
        await lane.release()
        return try result.get()
    }

    /// The calling thread's nice value (Linux keeps one per thread: `setpriority` with `who` 0 sets the caller's).
    package static func currentThreadsNiceness() -> Int32 {
        #if canImport(Glibc)
        errno = 0
        return getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        #else
        return 0
        #endif
    }

    private static func lowerThisThreadsPriority() {
        #if canImport(Glibc)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        #endif
    }
}
