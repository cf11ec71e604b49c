import CarePlan
import CareStore
import Foundation

/// What the patient list reads from the store, for every patient, at one store version and day: the patients,
/// each one's events of today that count for adherence, the week's vital-sign trends and the open alerts. The
/// list's rows are cut from it per request (the user's patients, what is overdue at this minute), so a ward of
/// clinicians refreshing the list costs one change-counter read each until something is written.
struct PatientListSnapshot: Sendable {
    struct Entry: Sendable {
        var patient: Patient
        /// Today's events that count for adherence, for done/total and what is overdue now.
        var today: [CareEvent]
        /// Each measured task's last value and its direction, with when it was measured (the time is rendered
        /// per request, in each user's zone: ``DashboardRoutes/vitals(_:)``).
        var vitals: [(text: String, at: Date)]
        var openAlerts: Int
    }

    /// The store's change counter when the reads began (a write during them makes the next request read again).
    var version: Int
    var day: CalendarDay
    var entries: [Entry]

    /// Reads the snapshot: three reads for the whole ward.
    static func read(from store: CareStore, version: Int, day: CalendarDay) async throws -> PatientListSnapshot {
        let zone = store.bridgeZone
        let patients = try await store.patients()
        let weeks = try await store.events(
            matching: EventQuery(from: day.adding(days: -6, zone: zone).start, to: day.end),
            patients: Set(patients.map(\.id))
        )
        let openAlerts = try await store.openAlertCounts()
        let entries = patients.map { patient in
            let week = weeks[patient.id] ?? []
            return Entry(
                patient: patient,
                today: week.filter { $0.start >= day.start && $0.impactsAdherence },
                vitals: DashboardRoutes.vitals(week),
                openAlerts: openAlerts[patient.id] ?? 0
            )
        }
        return PatientListSnapshot(version: version, day: day, entries: entries)
    }
}

/// The newest ``PatientListSnapshot``, read again only when the store changed (its change counter, which counts
/// every commit by any connection or process) or the day turned. Requests that arrive while it is being read wait
/// for that one read instead of starting their own.
actor PatientListCache {
    private let monitor: StoreChangeMonitor
    private var current: PatientListSnapshot?
    private var reading: (version: Int, day: CalendarDay, task: Task<PatientListSnapshot, any Error>)?

    init(monitor: StoreChangeMonitor) {
        self.monitor = monitor
    }

    /// The snapshot of `day` as the store is now.
    func snapshot(day: CalendarDay, store: CareStore) async throws -> PatientListSnapshot {
        // The counter is read before the data: a commit after this point shows as a newer version next time.
        let version = try await monitor.version()
        if let current, current.version == version, current.day == day { return current }
        if let reading, reading.version == version, reading.day == day { return try await reading.task.value }
        let task = Task { try await PatientListSnapshot.read(from: store, version: version, day: day) }
        reading = (version, day, task)
        defer { if reading?.task == task { reading = nil } }
        let snapshot = try await task.value
        if version >= current?.version ?? .min { current = snapshot }
        return snapshot
    }
}
