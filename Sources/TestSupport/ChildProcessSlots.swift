import Foundation

/// How many children ``ChildProcess/run(_:_:environment:stdin:slots:)`` runs at once.
///
/// A test that awaits its child holds no thread of the cooperative pool, so the pool goes on starting other tests:
/// without a bound a suite starts a hundred `carebridge` processes together on a 2-core machine, and the tests that
/// wait for a condition with a deadline (a service on a manual clock, a paced replay) starve.
/// Two children per core keep the load near what the blocking waits used to allow, without blocking a thread.
package actor ChildProcessSlots {
    /// The slots every run-to-the-end child of this test process shares.
    package static let shared = ChildProcessSlots(limit: 2 * max(1, ProcessInfo.processInfo.activeProcessorCount))

    package let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    package init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Waits for a free slot and takes it.
    package func acquire() async {
        if running < limit {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives a slot back: to the longest waiter, else to the pool.
    package func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }

    /// Children running now (at most ``limit``).
    package var occupied: Int { running }
}
