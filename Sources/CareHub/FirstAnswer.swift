import Synchronization

/// The first of several racing answers (the work, its deadline, the caller's cancellation), handed to one waiting
/// continuation; later answers are dropped. ``HubStore`` uses it so that a deadline answers without waiting for the
/// work it cancels.
final class FirstAnswer<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value?, Never>?
        var answer: Value??
        var onGiven: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    /// Parks `continuation` until the first answer (at once if one came already).
    func wait(_ continuation: CheckedContinuation<Value?, Never>) {
        let ready: Value?? = state.withLock { state in
            guard let answer = state.answer else {
                state.continuation = continuation
                return nil
            }
            return answer
        }
        if let ready { continuation.resume(returning: ready) }
    }

    /// Runs `action` once the first answer is given (at once if it was).
    func onGiven(_ action: @escaping @Sendable () -> Void) {
        let given = state.withLock { state in
            if state.answer == nil { state.onGiven.append(action) }
            return state.answer != nil
        }
        if given { action() }
    }

    /// Gives an answer (`nil`: none in time); only the first counts.
    func give(_ answer: Value?) {
        let (continuation, actions): (CheckedContinuation<Value?, Never>?, [@Sendable () -> Void]) = state.withLock {
            state in
            guard state.answer == nil else { return (nil, []) }
            state.answer = .some(answer)
            defer {
                state.continuation = nil
                state.onGiven = []
            }
            return (state.continuation, state.onGiven)
        }
        continuation?.resume(returning: answer)
        for action in actions { action() }
    }
}

extension FirstAnswer {
    /// Runs `body` against `deadline` on `clock` and the caller's cancellation, and returns the first answer: the
    /// body's result, nil when the deadline came first (a `CancellationError` when the caller was cancelled). The
    /// answer does not wait for `body` to wind down: it is cancelled and left to finish on its own; the timer stops
    /// once an answer is in.
    static func race<Success: Sendable>(
        within deadline: Duration,
        on clock: any Clock<Duration>,
        _ body: @escaping @Sendable () async throws -> Success
    ) async -> Value? where Value == Result<Success, any Error> {
        let answer = FirstAnswer()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                answer.wait(continuation)
                let work = Task {
                    do { answer.give(.success(try await body())) } catch { answer.give(.failure(error)) }
                }
                answer.onGiven { work.cancel() }
                let timer = Task {
                    try? await clock.sleep(for: deadline)
                    answer.give(nil)
                }
                // Once answered, the timer stops: it does not sleep on for the rest of its deadline.
                answer.onGiven { timer.cancel() }
            }
        } onCancel: {
            answer.give(.failure(CancellationError()))
        }
    }
}
