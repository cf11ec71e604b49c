import BridgeCore
public import Foundation

/// An outcome someone undid: which event, who (a care app user; nil for the command line), when, and what the
/// outcome held, so an undo never loses what was recorded.
public struct OutcomeUndo: Sendable, Hashable {
    public var taskID: String
    public var occurrence: Int
    public var eventStart: Date
    public var undoneAt: Date
    public var author: String?
    /// The removed outcome as JSON: `values` (value, unit, measuredAt, sampleID, text, comparator), `note`, `notDoneReason`,
    /// `author` and `createdDate` (times as ISO 8601 UTC).
    public var outcome: String

    public init(taskID: String, occurrence: Int, eventStart: Date, undoneAt: Date, author: String?, outcome: String) {
        self.taskID = taskID
        self.occurrence = occurrence
        self.eventStart = eventStart
        self.undoneAt = undoneAt
        self.author = author
        self.outcome = outcome
    }

    private struct Stored: Encodable {
        struct Value: Encodable {
            var value: Double?
            var unit: String
            var measuredAt: Date
            var sampleID: UUID?
            var text: String?
            var comparator: String?
        }
        var values: [Value]
        var note: String?
        var notDoneReason: String?
        var author: String?
        var createdDate: Date
    }

    /// The JSON kept for `outcome`. A LO/HI value keeps its comparator; an infinite limit is written as null.
    static func json(_ outcome: Outcome) throws -> String {
        let stored = Stored(
            values: outcome.values.map {
                .init(
                    value: $0.value.isFinite ? $0.value : nil,
                    unit: $0.unit.rawValue,
                    measuredAt: $0.measuredAt,
                    sampleID: $0.sampleID,
                    text: $0.text,
                    comparator: $0.comparator?.rawValue
                )
            },
            note: outcome.note,
            notDoneReason: outcome.notDoneReason,
            author: outcome.author,
            createdDate: outcome.createdDate
        )
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(stored), as: UTF8.self)
    }
}
