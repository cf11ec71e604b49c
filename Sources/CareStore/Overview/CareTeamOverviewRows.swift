public import Foundation

/// The rows the care team's overview is made from, as either engine reads them (``CareTeamOverviewSource``): no
/// decisions yet, only facts.
public struct CareTeamOverviewRows: Sendable, Hashable {
    /// A patient of the programme.
    public struct PatientRow: Sendable, Hashable {
        public var id: String
        /// The name as people read it (the hub, which knows only ids, gives the id).
        public var name: String
        /// The bridges (homes) the patient's data comes from: empty on a bridge's own store.
        public var homes: [String]

        public init(id: String, name: String, homes: [String] = []) {
            self.id = id
            self.name = name
            self.homes = homes
        }
    }

    /// One usable reading (not deleted, retracted or quarantined).
    public struct ReadingRow: Sendable, Hashable {
        public var patientID: String
        /// The sample's id (lower-case UUID).
        public var sampleID: String
        /// The quantity type's raw value (`bodyMass`).
        public var type: String
        public var value: Double
        /// The unit's raw value (`kg`).
        public var unit: String
        /// When it was measured.
        public var start: Date
        /// `<` or `>` when the device said the value is beyond what it measures (nil: a plain value).
        public var comparator: String?
        /// The device's status flags on the reading (``SampleScreening/flags(of:)``: `cuff too loose`), in its order.
        public var flags: [String]

        public init(
            patientID: String,
            sampleID: String,
            type: String,
            value: Double,
            unit: String,
            start: Date,
            comparator: String? = nil,
            flags: [String] = []
        ) {
            self.patientID = patientID
            self.sampleID = sampleID
            self.type = type
            self.value = value
            self.unit = unit
            self.start = start
            self.comparator = comparator
            self.flags = flags
        }
    }

    /// One state of one alert: a bridge's store gives each alert's current state, the hub every change it
    /// received (``order`` tells the newest).
    public struct AlertRow: Sendable, Hashable {
        public enum State: String, Sendable, Hashable {
            case open, acknowledged, withdrawn
        }

        public var patientID: String
        /// The alert's key, unique in the source (the hub prefixes the bridge: an alert's number is only unique in
        /// its bridge's store).
        public var key: String
        public var state: State
        /// `info`, `warning`, `urgent`… as the rule says.
        public var severity: String
        public var message: String
        /// When the facts that tripped it happened.
        public var occurredAt: Date
        /// The order the states were recorded in (higher: newer).
        public var order: Int64
        /// When an acknowledgement made at the hub was sent down to the alert's bridge, while the bridge has not
        /// answered it yet (nil: none waiting; a bridge's own store acknowledges at once).
        public var acknowledgementSentAt: Date? = nil

        public init(
            patientID: String,
            key: String,
            state: State,
            severity: String,
            message: String,
            occurredAt: Date,
            order: Int64 = 0
        ) {
            self.patientID = patientID
            self.key = key
            self.state = state
            self.severity = severity
            self.message = message
            self.occurredAt = occurredAt
            self.order = order
        }
    }

    public var patients: [PatientRow]
    public var readings: [ReadingRow]
    public var alerts: [AlertRow]

    public init(patients: [PatientRow], readings: [ReadingRow], alerts: [AlertRow]) {
        self.patients = patients
        self.readings = readings
        self.alerts = alerts
    }
}
