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

    /// The form `outcome` is kept in. Decoding takes each field as optional, so a form missing one still reads
    /// (``outcome(fromJSON:)`` gives its defaults); encoding writes every field the outcome has.
    private struct Stored: Codable {
        struct Value: Codable {
            var value: Double?
            var unit: String?
            var measuredAt: Date?
            var sampleID: UUID?
            var text: String?
            var comparator: String?
        }
        var values: [Value]?
        var note: String?
        var notDoneReason: String?
        var author: String?
        var createdDate: Date?
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

    /// The outcome `json(_:)` wrote (a bridge's outcome as it reaches the hub), as the store holds it: a LO/HI
    /// limit written as null is ±∞ again, another value without a number NaN; a missing time is `distantPast`, a
    /// missing unit empty. Nil when `json` is not that form.
    public static func outcome(fromJSON json: String) -> Outcome? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let stored = try? decoder.decode(Stored.self, from: Data(json.utf8)) else { return nil }
        let values = (stored.values ?? []).map { value -> OutcomeValue in
            let comparator = value.comparator.flatMap(ValueComparator.init(rawValue:))
            let limit: Double =
                switch comparator {
                case .greaterThan: .infinity
                case .lessThan: -.infinity
                case nil: .nan
                }
            return OutcomeValue(
                value: value.value ?? limit,
                unit: HealthUnit(rawValue: value.unit ?? ""),
                measuredAt: value.measuredAt ?? .distantPast,
                sampleID: value.sampleID,
                recordedAt: value.measuredAt ?? .distantPast,
                text: value.text,
                comparator: comparator
            )
        }
        return Outcome(
            values: values,
            createdDate: stored.createdDate ?? .distantPast,
            updatedDate: stored.createdDate ?? .distantPast,
            note: stored.note,
            notDoneReason: stored.notDoneReason,
            author: stored.author
        )
    }
}
