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
