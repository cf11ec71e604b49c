/// A loop's pause on a clock that a wake ends early: the outbox service's poll and back-off, the alert service's
/// pause between evaluations. A wake while the loop is busy makes its next pause end at once.
public actor WakeableSleep {
    let clock: any Clock<Duration>
    var wakeRequested = false
    var sleeper: CheckedContinuation<Void, Never>?

    /// - Parameter clock: what the pauses are measured on.
    public init(clock: any Clock<Duration>) { self.clock = clock }

    /// Sleeps for `interval` on the clock, until ``wake()``, or until the task is cancelled.
    public func sleep(for interval: Duration) async {
        guard !wakeRequested, !Task.isCancelled else {
            wakeRequested = false
            return
        }
        let timer = Task { [clock, weak self] in
            do { try await clock.sleep(for: interval) } catch { return }
            await self?.wake()
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { sleeper = $0 }
        } onCancel: {
            Task { await self.wake() }
        }
        timer.cancel()
        wakeRequested = false
    }

    /// Ends the current pause, or makes the next one end at once.
    public func wake() {
        wakeRequested = true
        sleeper?.resume()
        sleeper = nil
    }
}
