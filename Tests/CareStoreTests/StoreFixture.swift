import BridgeCore
import CarePlan
import CareStore
import Foundation
import Logging
import TestSupport

/// A store on a real SQLite file in a fresh temporary directory, removed when the fixture is released.
struct StoreFixture {
    let directory: ScratchDirectory
    let store: CareStore
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    init(bridgeZone: TimeZone = StoreFixture.berlin) throws {
        directory = try ScratchDirectory("carestore-")
        store = try CareStore(path: directory.path("care/store.sqlite"), bridgeZone: bridgeZone, logger: .quiet)
    }

    /// An instant given as Berlin wall-clock time.
    static func berlinTime(
        _ year: Int,
        _ month: Int,
        _ day: Int,
        _ hour: Int = 0,
        _ minute: Int = 0,
        _ second: Int = 0
    )
        -> Date
    {
        WallClockTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second).date(in: berlin)
    }

    /// A daily weigh-in assessment linked to body mass, all-day in Berlin from 2026-11-01.
    static func weighIn(
        aggregation: Aggregation = .first,
        unit: HealthUnit = .kilogram,
        duration: EventDuration = .allDay,
        hour: Int = 0,
        effectiveDate: Date? = nil,
        targetValues: [TargetValue] = []
    ) -> CareTask {
        CareTask(
            id: "weigh-in",
            title: "Weigh yourself",
            kind: .assessment,
            schedule: .daily(
                hour: hour,
                start: WallClockTime(year: 2026, month: 11, day: 1),
                duration: duration,
                targetValues: targetValues,
                timeZone: .fixed("Europe/Berlin")
            ),
            linkage: SampleLinkage(type: .bodyMass, unit: unit, aggregation: aggregation),
            effectiveDate: effectiveDate
        )
    }

    /// A daily intervention at 08:00 Berlin for one hour.
    static func medication() -> CareTask {
        CareTask(
            id: "medication",
            title: "Take medication",
            kind: .intervention,
            schedule: .daily(
                hour: 8,
                start: WallClockTime(year: 2026, month: 11, day: 1),
                duration: .hours(1),
                timeZone: .fixed("Europe/Berlin")
            )
        )
    }

    /// A body-mass sample from a scale (distinct payloads make distinct samples).
    static func weight(_ kilograms: Double, at date: Date, payload: UInt8 = 0) -> QuantitySample {
        QuantitySample(
            type: .bodyMass,
            value: kilograms,
            unit: .kilogram,
            start: date,
            source: SampleSource(
                kind: .device,
                decoder: "weight-measurement",
                device: DeviceIdentity(address: "C8:47:8C:00:00:01")
            ),
            receivedAt: date.addingTimeInterval(5),
            rawPayload: [0x02, payload, UInt8(Int(kilograms) & 0xFF)]
        )
    }
}

extension Logger {
    /// A logger that drops everything.
    static var quiet: Logger { Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }) }
}
