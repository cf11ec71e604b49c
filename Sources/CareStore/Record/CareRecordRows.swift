import BridgeCore
public import Foundation

/// One patient's record over some days, as either engine reads it (``CareRecordSource``): facts, each with the
/// local day it belongs to.
public struct CareRecordRows: Sendable, Hashable {
    /// A reading and the day it was measured on.
    public struct Reading: Sendable, Hashable {
        public var reading: CareTeamOverviewRows.ReadingRow
        /// `yyyy-MM-dd` where it was measured (``CareRecordRows/day(ofStamp:)``).
        public var day: String
        /// Why it is held in quarantine (nil: a usable reading).
        public var quarantine: String?

        public init(reading: CareTeamOverviewRows.ReadingRow, day: String, quarantine: String? = nil) {
            self.reading = reading
            self.day = day
            self.quarantine = quarantine
        }
    }

    /// An event's recorded outcome.
    public struct Outcome: Sendable, Hashable {
        public var taskID: String
        /// The id (lower-case UUID) of the task version the event belongs to: the one in force on its day.
        public var taskVersion: String
        public var occurrence: Int
        /// `yyyy-MM-dd` of the event's start where the patient lives.
        public var day: String
        /// The outcome's values (nil: a value with no number, such as a LO/HI limit or a text answer).
        public var values: [Double?]

        public init(taskID: String, taskVersion: String, occurrence: Int, day: String, values: [Double?]) {
            self.taskID = taskID
            self.taskVersion = taskVersion
            self.occurrence = occurrence
            self.day = day
            self.values = values
        }
    }

    /// Usable readings, oldest first (ties: by id).
    public var readings: [Reading]
    /// Readings held in quarantine (not in the record until a person releases them), oldest first.
    public var quarantined: [Reading]
    /// Recorded outcomes, by day, task and occurrence.
    public var outcomes: [Outcome]
    /// Every state of the patient's alerts the store holds (``CareTeamOverview`` tells which is newest).
    public var alerts: [CareTeamOverviewRows.AlertRow]

    public init(
        readings: [Reading],
        quarantined: [Reading] = [],
        outcomes: [Outcome],
        alerts: [CareTeamOverviewRows.AlertRow]
    ) {
        let order = { (a: Reading, b: Reading) in
            (a.reading.start, a.reading.sampleID) < (b.reading.start, b.reading.sampleID)
        }
        self.readings = readings.sorted(by: order)
        self.quarantined = quarantined.sorted(by: order)
        self.outcomes = outcomes.sorted { ($0.day, $0.taskID, $0.occurrence) < ($1.day, $1.taskID, $1.occurrence) }
        self.alerts = alerts
    }

    /// The local day of a time as CareBridge writes it (`2026-11-26T23:30:00+01:00` → `2026-11-26`): the day where
    /// it was measured, whatever zone reads it later. The hub reads it off the text its bridge wrote; nil for a
    /// text that is no such time.
    public static func day(ofStamp stamp: String) -> String? {
        let day = stamp.prefix(10)
        guard day.count == 10,
            day.utf8.enumerated().allSatisfy({
                $0.offset == 4 || $0.offset == 7 ? $0.element == 0x2D : (0x30...0x39).contains($0.element)
            })
        else { return nil }
        return String(day)
    }

    /// The local day of `date` in `zone` (the bridge's: where its patients live), by the same rule.
    public static func day(of date: Date, in zone: TimeZone) -> String {
        day(ofStamp: Timestamp.format(date, in: zone)) ?? ""
    }
}
