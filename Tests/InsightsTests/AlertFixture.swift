import BridgeCore
import CarePlan
import CareStore
import Foundation
import Logging

/// A store on a real SQLite file in a fresh temporary directory, with helpers for the rule tests.
final class AlertFixture {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    let directory: URL
    let store: CareStore

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("insights-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try CareStore(
            path: directory.appendingPathComponent("store.sqlite").path,
            bridgeZone: Self.berlin,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    static func time(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Date {
        WallClockTime(year: year, month: month, day: day, hour: hour, minute: minute).date(in: berlin)
    }

    static func daily(hour: Int = 0, duration: EventDuration = .allDay, count: Int = 1) -> Schedule {
        Schedule(
            timeZonePolicy: .fixed("Europe/Berlin"),
            elements: Array(
                repeating: ScheduleElement(
                    start: WallClockTime(year: 2026, month: 10, day: 1, hour: hour),
                    interval: ScheduleInterval(days: 1),
                    duration: duration
                ),
                count: count
            )
        )
    }

    static func weighIn(_ rules: [AlertRule]) -> CareTask {
        CareTask(
            id: "weigh-in",
            title: "Body mass",
            kind: .assessment,
            schedule: daily(),
            linkage: SampleLinkage(type: .bodyMass, unit: .kilogram, aggregation: .each),
            alerts: rules
        )
    }

    static func pain(_ rules: [AlertRule]) -> CareTask {
        CareTask(
            id: "pain",
            title: "Back pain",
            kind: .assessment,
            schedule: daily(),
            answer: .scale(min: 0, max: 10, step: 1, labels: [:]),
            alerts: rules
        )
    }

    static func medication(_ rules: [AlertRule]) -> CareTask {
        CareTask(
            id: "medication",
            title: "Medication",
            kind: .intervention,
            schedule: Schedule(
                timeZonePolicy: .fixed("Europe/Berlin"),
                elements: [8, 20].map { hour in
                    ScheduleElement(
                        start: WallClockTime(year: 2026, month: 10, day: 1, hour: hour),
                        interval: ScheduleInterval(days: 1),
                        duration: .hours(2)
                    )
                }
            ),
            alerts: rules
        )
    }

    @discardableResult
    func weight(_ kilograms: Double, at date: Date) async throws -> QuantitySample {
        let sample = try ManualReading.sample(
            type: .bodyMass,
            value: kilograms,
            unit: "kg",
            at: date,
            receivedAt: date.addingTimeInterval(60)
        )
        try await store.recordSample(sample, recordedAt: date.addingTimeInterval(60))
        return sample
    }

    func answer(_ task: String, _ value: String, at date: Date) async throws {
        try await store.complete(
            taskID: task,
            occurrence: nil,
            at: date,
            entry: Completion(answer: value),
            now: date.addingTimeInterval(60)
        )
    }
}
