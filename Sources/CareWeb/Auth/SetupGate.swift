public import Foundation
import Synchronization

/// The one-time setup of a care app whose store has no users: `carebridge serve` makes a token, prints the link
/// that carries it once to the terminal, and keeps only its hash here; the first visit with it creates the admin
/// account, and the token then stops working (also when the process is started again: a new one is made only
/// while the store still has no user).
public final class SetupGate: Sendable {
    private enum State {
        /// Waiting for the token whose SHA-256 this is.
        case open(Data)
        /// A visit with the token is creating the admin account.
        case claimed(Data)
        /// The account exists: the token no longer works.
        case done
    }

    private let state: Mutex<State>

    /// A gate for the token whose hash is given (``SessionToken/hash(_:)``).
    public init(tokenHash: Data) {
        state = Mutex(.open(tokenHash))
    }

    /// A new token and the gate that waits for it; the caller prints the token once and forgets it.
    public static func make() -> (gate: SetupGate, token: String) {
        let token = SessionToken.make()
        return (SetupGate(tokenHash: SessionToken.hash(token)), token)
    }

    /// Whether `token` opens the gate now (it is waiting, and this is its token).
    func accepts(_ token: String) -> Bool {
        let hash = SessionToken.hash(token)
        return state.withLock { state in
            guard case .open(let expected) = state else { return false }
            return Self.equal(hash, expected)
        }
    }

    /// Takes the gate for one visit: true when `token` is its token and no other visit has it.
    func claim(_ token: String) -> Bool {
        let hash = SessionToken.hash(token)
        return state.withLock { state in
            guard case .open(let expected) = state, Self.equal(hash, expected) else { return false }
            state = .claimed(expected)
            return true
        }
    }

    /// Ends a claim: `done` when the account was created, else the token works again.
    func finish(created: Bool) {
        state.withLock { state in
            guard case .claimed(let expected) = state else { return }
            state = created ? .done : .open(expected)
        }
    }

    /// Whether setup is still waiting for its token.
    public var isOpen: Bool {
        state.withLock { state in
            if case .done = state { return false }
            return true
        }
    }

    private static func equal(_ lhs: Data, _ rhs: Data) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
