import BridgeCore

/// A compiled procedure a ``SessionMachine`` step hands every input to until it ends: an Omron memory-map download
/// or a Eufy P2 handshake.
enum SessionProcedure: Sendable {
    case omron(OmronMemorySession)
    case eufy(EufyHandshakeSession)

    enum Outcome: Sendable, Hashable {
        case running
        /// The procedure ended; its variables replace the session's when it changed them.
        case finished(SessionVariables?)
        case failed(String)
    }

    var outcome: Outcome {
        switch self {
        case .omron(let session):
            switch session.status {
            case .running: .running
            case .finished(let variables): .finished(variables)
            case .failed(let reason): .failed(reason)
            }
        case .eufy(let session):
            switch session.status {
            case .running: .running
            case .finished: .finished(nil)
            case .failed(let reason): .failed(reason)
            }
        }
    }

    var currentStep: String {
        switch self {
        case .omron(let session): session.currentStep
        case .eufy(let session): session.currentStep
        }
    }

    mutating func start(ids: inout Int) -> [SessionAction] {
        switch self {
        case .omron(var session):
            let actions = session.start(ids: &ids)
            self = .omron(session)
            return actions
        case .eufy(var session):
            let actions = session.start(ids: &ids)
            self = .eufy(session)
            return actions
        }
    }

    mutating func handle(_ input: SessionInput, ids: inout Int) -> [SessionAction] {
        switch self {
        case .omron(var session):
            let actions = session.handle(input, ids: &ids)
            self = .omron(session)
            return actions
        case .eufy(var session):
            let actions = session.handle(input, ids: &ids)
            self = .eufy(session)
            return actions
        }
    }
}
