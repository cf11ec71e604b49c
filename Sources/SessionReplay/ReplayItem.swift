public import BridgeCore

/// What a replay yields for each line of a recording, in file order (``ReplayTransport/items()``).
///
/// A type of its own rather than one nested in ``ReplayTransport``: a type nested in a generic class is generic
/// itself, and the replay loop, compiled once for every clock, then handled each item through runtime type
/// metadata.
public enum ReplayItem: Sendable {
    case event(TransportEvent, RecordingLocation)
    /// A bad line, skipped.
    case problem(RecordingProblem)
}
