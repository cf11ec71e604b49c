public import BridgeFoundation
public import CareStore
public import Foundation

/// A reading a bridge sent in quarantine, as the hub holds it apart from the record, and what became of it.
public struct HubQuarantinedReading: Sendable, Equatable {
    /// Where the care team's decision stands.
    public enum State: Sendable, Hashable {
        /// Waiting for a decision.
        case held
        /// Decided at the hub; the bridge has not answered yet.
        case sent(QuarantineDecision.Verdict)
        /// In the record: the bridge released it (by the hub's decision or its own).
        case released
        /// Deleted on the bridge (by the hub's decision or its own).
        case rejected
        /// The bridge refused the hub's decision (it had decided first), and why.
        case refused(String)

        /// `held`, `release sent`, `reject sent`, `released`, `rejected` or `refused`.
        public var label: String {
            switch self {
            case .held: "held"
            case .sent(let verdict): "\(verdict.rawValue) sent"
            case .released: "released"
            case .rejected: "rejected"
            case .refused: "refused"
            }
        }
    }

    public var bridge: String
    public var patient: String
    /// The sample's id (lower-case UUID).
    public var id: String
    /// The sample as the bridge wrote it (`samples --json`, with `quarantine`: why it is held).
    public var sample: JSONValue
    public var receivedAt: Date
    public var state: State
    /// The care team's decision at the hub (nil: none there).
    public var decision: Decision?

    /// A decision taken at the hub: the verdict, why, who, when, and the change that carries it down.
    public struct Decision: Sendable, Hashable {
        public var verdict: QuarantineDecision.Verdict
        public var reason: String
        public var by: String
        public var at: Date
        public var change: Int64
    }

    /// Whether it is still out of the record and undecided by the bridge (held, or a decision on its way).
    public var isOpen: Bool {
        switch state {
        case .held, .sent: true
        case .released, .rejected, .refused: false
        }
    }

    /// The reading as `hub samples --json` lists it.
    public var json: JSONValue {
        var object: JSONObject = [
            "bridge": .string(bridge), "patient": .string(patient), "id": .string(id), "sample": sample,
            "receivedAt": .string(ISO8601DateFormatter().string(from: receivedAt)), "state": .string(state.label),
        ]
        if case .refused(let reason) = state { object["refused"] = .string(reason) }
        if let decision {
            object["decision"] = .object([
                "verdict": .string(decision.verdict.rawValue), "reason": .string(decision.reason),
                "by": .string(decision.by), "at": .string(ISO8601DateFormatter().string(from: decision.at)),
                "change": .int(Int(decision.change)),
            ])
        }
        return .object(object)
    }
}
