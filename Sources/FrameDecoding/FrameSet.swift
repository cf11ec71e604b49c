import BridgeCore
public import BridgeFoundation
import DeviceSessions

/// The `frames` of one characteristic, Service Data or Manufacturer Data entry: a value is decoded by the first
/// frame whose `select` holds; a value none selects is only logged.
public struct FrameSet: Sendable, Hashable {
    public var frames: [Frame]

    public init(frames: [Frame]) {
        self.frames = frames
    }

    /// Reads a `frames` array (names unique within it; merges are checked profile-wide by ``checkMerges(_:)``).
    /// - Throws: ``JSONReadError`` at the offending member.
    public init(json reader: JSONReader) throws(JSONReadError) {
        let elements = try reader.array()
        guard !elements.isEmpty else { throw reader.error("give at least one frame") }
        frames = []
        for element in elements {
            let frame = try Frame(json: element)
            if frames.contains(where: { $0.name == frame.name }) {
                throw element.error("frame name \(frame.name) is used twice")
            }
            frames.append(frame)
        }
    }

    /// Checks the `merge` of every frame of a profile against all its frames (a merge partner may be read from
    /// another characteristic): `with` names another frame, `by` and `FRAME.field` references name its fields.
    /// - Parameter sets: each entry's frames with the JSON path of its `frames` array.
    /// - Throws: ``JSONReadError`` at the offending member.
    public static func checkMerges(_ sets: [(frames: FrameSet, path: JSONPath)]) throws(JSONReadError) {
        let all = sets.flatMap(\.frames.frames)
        for (set, setPath) in sets {
            for (index, frame) in set.frames.enumerated() {
                guard let merge = frame.merge else { continue }
                let path = setPath.appending(index: index)
                guard let other = all.first(where: { $0.name == merge.with && $0 != frame }) else {
                    throw JSONReadError(
                        path: path.appending("merge").appending("with"),
                        message: "no other frame of the profile is named \(merge.with)"
                    )
                }
                if let by = merge.by, !other.fields.contains(where: { $0.name == by }) {
                    throw JSONReadError(
                        path: path.appending("merge").appending("by"),
                        message: "frame \(other.name) has no field \(by) to merge by"
                    )
                }
                for (position, rule) in frame.samples.enumerated() {
                    let conditionReferences = rule.when.flatMap(\.variableNames).compactMap(FrameFieldReference.init)
                    for reference in [rule.field] + (rule.unitField.map { [$0] } ?? []) + conditionReferences
                    where reference.frame != nil {
                        guard other.fields.contains(where: { $0.name == reference.field }) else {
                            throw JSONReadError(
                                path: path.appending("samples").appending(index: position),
                                message: "frame \(other.name) has no field \(reference.field)"
                            )
                        }
                    }
                }
            }
        }
    }

    /// The frame that selects `bytes` and its decoding; nil when no frame selects the value.
    /// - Throws: ``FrameDecodingError`` when the selecting frame cannot read the value (checksum, length).
    public func decode(_ bytes: [UInt8]) throws(FrameDecodingError) -> (frame: Frame, decoded: DecodedFrame)? {
        for frame in frames where frame.select.matches(bytes) {
            if frame.selectWhen.isEmpty { return (frame, try frame.decode(bytes)) }
            // `select.when` looks at the fields: a value the frame cannot read is not this frame's.
            guard let decoded = try? frame.decode(bytes) else { continue }
            let variables = decoded.variables
            if frame.selectWhen.allSatisfy({ $0.holdsForFields(variables) }) { return (frame, decoded) }
        }
        return nil
    }

    public func frame(named name: String) -> Frame? {
        frames.first { $0.name == name }
    }
}
