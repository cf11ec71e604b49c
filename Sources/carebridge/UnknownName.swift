import ArgumentParser
import BridgeFoundation
import CareStore

/// What to say about a task or patient name the store does not know: the names it has, and "did you mean" the
/// closest (``NameSuggestion``). Every command that takes a task or patient name reports an unknown one through here.
enum UnknownName {
    /// `no task 'weigh_in' in the plan; did you mean 'weigh-in'? tasks: blood-pressure, weigh-in`.
    static func task(_ typed: String, in store: CareStore) async -> String {
        let known = Set((try? await store.tasks().map(\.name)) ?? []).sorted()
        return "no task '\(typed)' in the plan; \(NameSuggestion.didYouMean(typed, in: known))tasks: "
            + (known.isEmpty ? "none (apply a plan first)" : known.joined(separator: ", "))
    }

    /// Prints a store error and returns its exit code (``StoreExit/fail(_:)``); a task the store does not know is
    /// named with the tasks it has and the closest of them.
    static func fail(_ error: CareStoreError, in store: CareStore) async -> ExitCode {
        guard error.code == .taskNotFound, let typed = error.taskID else { return StoreExit.fail(error) }
        Output.error(await task(typed, in: store))
        return ExitCode(StoreExit.notFound)
    }
}
