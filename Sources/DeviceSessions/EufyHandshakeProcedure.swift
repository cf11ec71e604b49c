import BridgeCore

/// The Eufy P2 handshake (``EufyHandshakeSession``) as a ``SessionProcedure``: it logs in and leaves the session's
/// variables as they were.
struct EufyHandshakeProcedure: SessionProcedure {
    var session: EufyHandshakeSession
    let variables: SessionVariables

    var status: SessionProcedureStatus {
        switch session.status {
        case .running: .running
        case .finished: .finished(variables)
        case .failed(let reason): .failed(reason)
        }
    }

    var currentStep: String { session.currentStep }

    mutating func start(ids: inout Int) -> [SessionAction] { session.start(ids: &ids) }

    mutating func handle(_ input: SessionInput, ids: inout Int) -> [SessionAction] { session.handle(input, ids: &ids) }
}
