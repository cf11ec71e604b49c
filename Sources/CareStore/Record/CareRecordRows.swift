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
        /// The bridge that recorded it (on the hub; nil in a bridge's own store).
        public var bridge: String?

        public init(
            taskID: String,
            taskVersion: String,
            occurrence: Int,
            day: String,
            values: [Double?],
            bridge: String? = nil
        ) {
            self.taskID = taskID
            self.taskVersion = taskVersion
            self.occurrence = occurrence
            self.day = day
            self.values = values
            self.bridge = bridge
        }
    }

    /// An event of the patient's plan on a day: what was due, from the task version in force, and whether it was
    /// done (``state(at:)`` tells done, not done, due, late or missed). On the hub, one event the patient's plan
    /// gives on several bridges is one event here, with each bridge's copy in ``bridges``
    /// (``CareRecordRows/Event/merged(_:)``); its other fields are the first bridge's (by name).
    public struct Event: Sendable, Hashable {
        /// One bridge's copy of an event: the bridge's key, task version and occurrence for it, and what was
        /// recorded there.
        public struct OnBridge: Sendable, Hashable {
            /// The bridge's name at the hub.
            public var bridge: String
            /// The bridge's store-wide key for the task (`weigh`, or `weigh@ann` when another patient had `weigh`).
            public var taskID: String
            /// The id (lower-case UUID) of the bridge's task version the event belongs to.
            public var taskVersion: String
            public var occurrence: Int
            /// Whether the bridge's outcome completes it.
            public var isCompleted: Bool
            /// Why it was not done, when the bridge marked it so.
            public var notDoneReason: String?

            public init(
                bridge: String,
                taskID: String,
                taskVersion: String,
                occurrence: Int,
                isCompleted: Bool,
                notDoneReason: String?
            ) {
                self.bridge = bridge
                self.taskID = taskID
                self.taskVersion = taskVersion
                self.occurrence = occurrence
                self.isCompleted = isCompleted
                self.notDoneReason = notDoneReason
            }
        }

        public var taskID: String
        /// The task's id in its patient's plan.
        public var taskName: String
        public var title: String
        /// The id (lower-case UUID) of the task version the event belongs to.
        public var taskVersion: String
        public var occurrence: Int
        /// `yyyy-MM-dd` of the event's start where the patient lives.
        public var day: String
        public var start: Date
        public var end: Date
        public var isAllDay: Bool
        /// Whether its outcome completes it (CareKit's progress reached 1); on the hub, whether some bridge's does.
        public var isCompleted: Bool
        /// Why it was not done, when it was marked so (on the hub: by some bridge, and no bridge completed it).
        public var notDoneReason: String?
        /// The patient's zone the event was computed in (the bridge's): its day decides late against missed, not
        /// the zone of whoever looks at the page.
        public var zone: TimeZone
        /// The bridges that hold the event, each with its copy, by bridge name (on the hub; empty in a bridge's own
        /// store).
        public var bridges: [OnBridge]

        /// The event as the record keeps it, on its day in `zone` (the patient's); `bridge`: the bridge it came
        /// from, on the hub.
        public init(_ event: CareEvent, zone: TimeZone, bridge: String? = nil) {
            taskID = event.taskID
            taskName = event.taskName
            title = event.title
            taskVersion = event.key.taskVersion.uuidString.lowercased()
            occurrence = event.occurrence
            day = CareRecordRows.day(of: event.start, in: zone)
            start = event.start
            end = event.end
            isAllDay = event.isAllDay
            isCompleted = event.isCompleted
            notDoneReason = event.outcome?.notDoneReason
            self.zone = zone
            bridges = []
            if let bridge {
                bridges.append(
                    OnBridge(
                        bridge: bridge,
                        taskID: event.taskID,
                        taskVersion: event.key.taskVersion.uuidString.lowercased(),
                        occurrence: event.occurrence,
                        isCompleted: event.isCompleted,
                        notDoneReason: event.outcome?.notDoneReason
                    )
                )
            }
        }

        /// Where the event stands at `now` (the day of `now` in the patient's ``zone``), by the bridge's own rule
        /// (``EventState``).
        public func state(at now: Date) -> EventState {
            EventState(notDone: notDoneReason != nil, completed: isCompleted, end: end, at: now, zone: zone)
        }
    }

    /// Usable readings, oldest first (ties: by id).
    public var readings: [Reading]
    /// Readings held in quarantine (not in the record until a person releases them), oldest first.
    public var quarantined: [Reading]
    /// Recorded outcomes, by day, task, occurrence and bridge (on the hub every bridge's, each with its bridge).
    public var outcomes: [Outcome]
    /// The events of the patient's plan on the days, done or not, by start, task, occurrence and first bridge.
    public var events: [Event]
    /// Every state of the patient's alerts the store holds (``CareTeamOverview`` tells which is newest).
    public var alerts: [CareTeamOverviewRows.AlertRow]

    public init(
        readings: [Reading],
        quarantined: [Reading] = [],
        outcomes: [Outcome],
        events: [Event] = [],
        alerts: [CareTeamOverviewRows.AlertRow]
    ) {
        let order = { (a: Reading, b: Reading) in
            (a.reading.start, a.reading.sampleID) < (b.reading.start, b.reading.sampleID)
        }
        self.readings = readings.sorted(by: order)
        self.quarantined = quarantined.sorted(by: order)
        self.outcomes = outcomes.sorted {
            ($0.day, $0.taskID, $0.occurrence, $0.bridge ?? "") < ($1.day, $1.taskID, $1.occurrence, $1.bridge ?? "")
        }
        self.events = events.sorted {
            ($0.start, $0.taskID, $0.occurrence, $0.bridges.first?.bridge ?? "")
                < ($1.start, $1.taskID, $1.occurrence, $1.bridges.first?.bridge ?? "")
        }
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
