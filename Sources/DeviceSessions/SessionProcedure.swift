public import BridgeCore

/// A compiled conversation a ``SessionMachine`` step hands every input to until it finishes: a vendor download
/// too stateful for the step language (an Omron memory map, a Viatom file download).
///
/// Pure like the machine: inputs in, actions out, no I/O and no clock. `ids` is the machine's action-id counter,
/// so the procedure's writes and timers never collide with the steps' own.
public protocol SessionProcedure: Sendable {
    var status: SessionProcedureStatus { get }
    /// The request being waited on, for messages.
    var currentStep: String { get }
    /// Sends the first request.
    mutating func start(ids: inout Int) -> [SessionAction]
    mutating func handle(_ input: SessionInput, ids: inout Int) -> [SessionAction]
}

/// Where a ``SessionProcedure`` stands.
public enum SessionProcedureStatus: Sendable, Hashable {
    case running
    /// Done: the session variables as the procedure leaves them (its cursor moved).
    case finished(SessionVariables)
    case failed(String)
}

extension SessionProcedure {
    /// The inputs every request-and-answer procedure (the Omron memory map, the Viatom files) handles alike: a write
    /// of its own that completed is forgotten, one that failed fails the procedure naming the request, and the link
    /// going down fails it naming the request it was waiting on. `writes` holds the ids of its writes not yet
    /// completed; `request` describes the request being waited on (nil: none, at the end); `fail` is how the
    /// procedure fails with a reason.
    /// - Returns: the actions for such an input; nil for a value or a timer, the procedure's own to handle.
    public mutating func writeOrLink(
        _ input: SessionInput,
        writes: WritableKeyPath<Self, Set<Int>>,
        during request: String?,
        fail: (inout Self, String) -> [SessionAction]
    ) -> [SessionAction]? {
        switch input {
        case .completed(let id):
            self[keyPath: writes].remove(id)
            return []
        case .failed(let id, let message):
            guard self[keyPath: writes].contains(id) else { return [] }
            return fail(&self, "\(request ?? "write"): \(message)")
        case .disconnected:
            return fail(&self, "the link went down at the \(request ?? "end")")
        case .value, .timer:
            return nil
        }
    }
}
