import Foundation

/// The care team's overview across patients: for each patient the latest reading of each type and the open
/// alerts, the patients with open alerts first. Made from ``CareTeamOverviewRows`` by pure rules, the same for a
/// bridge's SQLite store and the hub's PostgreSQL.
public struct CareTeamOverview: Sendable, Hashable {
    /// One patient's line.
    public struct Entry: Sendable, Hashable {
        public var patient: CareTeamOverviewRows.PatientRow
        /// The newest reading of each type, by type.
        public var latest: [Latest]
        /// `rising`, `falling` or `steady` from one value to the next of the same quantity (a change within 1 % or
        /// 0.05 is steady); nil when either is not a number.
        public static func trend(from previous: Double, to last: Double) -> String? {
            guard previous.isFinite, last.isFinite else { return nil }
            let change = last - previous
            let tolerance = max(abs(previous) * 0.01, 0.05)
            return change > tolerance ? "rising" : change < -tolerance ? "falling" : "steady"
        }

        /// The alerts whose newest state is open, newest facts first.
        public var openAlerts: [CareTeamOverviewRows.AlertRow]
    }

    /// The newest reading of one type and how it moved since the one before.
    public struct Latest: Sendable, Hashable {
        public var reading: CareTeamOverviewRows.ReadingRow
        /// Beyond what the device measures (it sent a comparator).
        public var isOutOfRange: Bool
        /// `rising`, `falling` or `steady` against the reading before (nil: the first, or not comparable).
        public var trend: String?
    }

    public var entries: [Entry]

    /// Applies the rules to the rows.
    /// - Parameter rows: what a ``CareTeamOverviewSource`` read.
    public init(rows: CareTeamOverviewRows) {
        let readings = Dictionary(grouping: rows.readings, by: \.patientID)
        let alerts = Dictionary(grouping: rows.alerts, by: \.patientID)
        entries = rows.patients.map { patient in
            Entry(
                patient: patient,
                latest: Self.latest(readings[patient.id] ?? []),
                openAlerts: Self.openAlerts(alerts[patient.id] ?? [])
            )
        }
        .sorted {
            ($1.openAlerts.count, $0.patient.name.lowercased(), $0.patient.id) < (
                $0.openAlerts.count, $1.patient.name.lowercased(), $1.patient.id
            )
        }
    }

    /// The newest reading of each type (ties: the higher sample id, so both engines pick the same one) and its
    /// direction against the one before (``trend(from:to:)``).
    static func latest(_ readings: [CareTeamOverviewRows.ReadingRow]) -> [Latest] {
        let byType = Dictionary(grouping: readings, by: \.type)
        return byType.keys.sorted().compactMap { type in
            let ordered = byType[type, default: []].sorted { ($0.start, $0.sampleID) < ($1.start, $1.sampleID) }
            guard let last = ordered.last else { return nil }
            let previous = ordered.count > 1 ? ordered[ordered.count - 2] : nil
            return Latest(
                reading: last,
                isOutOfRange: last.comparator != nil,
                trend: previous.flatMap { $0.unit == last.unit ? trend(from: $0.value, to: last.value) : nil }
            )
        }
    }

    /// `rising`, `falling` or `steady` from one value to the next of the same quantity (a change within 1 % or
    /// 0.05 is steady); nil when either is not a number.
    public static func trend(from previous: Double, to last: Double) -> String? {
        guard previous.isFinite, last.isFinite else { return nil }
        let change = last - previous
        let tolerance = max(abs(previous) * 0.01, 0.05)
        return change > tolerance ? "rising" : change < -tolerance ? "falling" : "steady"
    }

    /// The alerts whose newest state (highest ``CareTeamOverviewRows/AlertRow/order``) is open, newest facts
    /// first.
    static func openAlerts(_ rows: [CareTeamOverviewRows.AlertRow]) -> [CareTeamOverviewRows.AlertRow] {
        var newest: [String: CareTeamOverviewRows.AlertRow] = [:]
        for row in rows where newest[row.key].map({ $0.order < row.order }) ?? true { newest[row.key] = row }
        return newest.values.filter { $0.state == .open }
            .sorted { ($0.occurredAt, $0.key) > ($1.occurredAt, $1.key) }
    }
}
