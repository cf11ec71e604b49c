import Foundation
import GRDB

/// The statement of one page of ``SampleCursor``: the rows of a ``SampleQuery`` after a position, in
/// (start, idTail, type) order, through the table's key only.
///
/// The key is `(type, start, idTail)`, so one type's rows are already in (start, idTail) order: each type is its
/// own key range read from the cursor on (a row-value comparison `(start, idTail) > (?, ?)`, which SQLite seeks
/// to), and several types are merged in order by a compound `UNION ALL … ORDER BY` (SQLite's MERGE of sorted
/// co-routines, stopping after LIMIT rows). A page therefore reads its own rows plus at most one per type, and
/// costs the same at the end of a history as at its start. (`type IN (…)` with the cursor as an OR sorted every
/// remaining row of the range in a temporary B-tree for each page: quadratic over an export.)
struct SamplePageStatement {
    /// `SELECT` of ``SampleRowReader/columns``; its parameters are ``arguments``.
    var sql: String
    var arguments: StatementArguments

    /// The page's order, by result column of ``SampleRowReader/columns``: start, idTail, then type (two types
    /// cannot share an id, but the order is total anyway).
    static let order = "ORDER BY 2, 3, 1"

    /// - Parameters:
    ///   - codes: the type codes to read (each its own key range), at least one.
    ///   - position: the last row read, with its type code when known (rows of a later type at the same start
    ///     and id then follow it).
    ///   - patient: the patient whose rows are read (the query's, else the store's scope); nil: every row.
    init(
        codes: [Int64],
        query: SampleQuery,
        after position: (start: Int64, tail: Data, type: Int64?)?,
        patient: String?,
        limit: Int
    ) {
        var shared: [String] = []
        var sharedArguments = StatementArguments()
        if let to = query.to {
            shared.append("r.start < ?")
            _ = sharedArguments.append(contentsOf: [SampleTable.millisecondsCeiling(to)])
        }
        if !query.includesDeleted {
            shared.append("(r.state IS NULL OR r.state & \(SampleTable.deletedBit) = 0)")
        }
        if query.unassignedOnly {
            shared.append("r.state & \(SampleTable.inboxBit) != 0")
        } else if let patient {
            shared.append("r.route IN (SELECT id FROM sampleRoute WHERE patientID = ?)")
            _ = sharedArguments.append(contentsOf: [patient])
        }
        switch query.quarantine {
        case .excluded: shared.append("(r.state IS NULL OR r.state & \(SampleTable.quarantinedBit) = 0)")
        case .only: shared.append("r.state & \(SampleTable.quarantinedBit) != 0")
        case .included: break
        }
        let from = query.from.map(SampleTable.millisecondsCeiling)
        var position = position
        // A position before `from` (a caller's own) reads from `from`.
        if let from, let start = position?.start, start < from { position = nil }
        var arms: [String] = []
        var arguments = StatementArguments()
        for code in codes {
            var conditions = ["r.type = \(code)"]
            if let position {
                // After the last row read; at the same start and id, a later type's row has not been read yet.
                let inclusive = position.type.map { code > $0 } ?? false
                conditions.append("(r.start, r.idTail) \(inclusive ? ">=" : ">") (?, ?)")
                _ = arguments.append(contentsOf: [position.start, position.tail])
            } else if let from {
                // Only before the first page: after it the cursor is past `from` already, and a second lower
                // bound would make SQLite seek to `from` (not the cursor) and read every row between them.
                conditions.append("r.start >= ?")
                _ = arguments.append(contentsOf: [from])
            }
            arms.append(
                "SELECT \(SampleRowReader.columns) FROM \(SampleTable.from) WHERE "
                    + (conditions + shared).joined(separator: " AND ")
            )
            _ = arguments.append(contentsOf: sharedArguments)
        }
        _ = arguments.append(contentsOf: [limit])
        sql = arms.joined(separator: " UNION ALL ") + " \(Self.order) LIMIT ?"
        self.arguments = arguments
    }
}
