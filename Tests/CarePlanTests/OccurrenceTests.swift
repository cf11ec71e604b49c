import CarePlan
import Foundation
import TestSupport
import Testing

@Suite struct OccurrenceTests {
    static let zones = [
        "Europe/Berlin", "America/New_York", "UTC", "Australia/Lord_Howe", "Asia/Kolkata", "America/Santiago",
    ]

    static func randomSchedule(_ random: inout SeededGenerator) -> Schedule {
        let zone = zones.randomElement(using: &random)!
        var elements: [ScheduleElement] = []
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let start = WallClockTime(
                year: Int.random(in: 2024...2026, using: &random),
                month: Int.random(in: 1...12, using: &random),
                day: [1, 15, 28, 29, 30, 31].randomElement(using: &random)!,
                hour: [0, 1, 2, 3, 8, 23].randomElement(using: &random)!,
                minute: [0, 30].randomElement(using: &random)!
            )
            guard start.validationProblem == nil else { continue }
            let end: WallClockTime? =
                Bool.random(using: &random)
                ? nil : WallClockTime(year: 2027, month: Int.random(in: 1...12, using: &random), day: 10)
            switch Int.random(in: 0..<7, using: &random) {
            case 6:
                // Long events that overlap the next ones.
                elements.append(
                    ScheduleElement(
                        start: start,
                        end: end,
                        interval: .days(Int.random(in: 1...2, using: &random)),
                        duration: .hours(Double(Int.random(in: 30...80, using: &random)))
                    )
                )
            case 0:
                elements.append(
                    ScheduleElement(
                        start: start,
                        end: end,
                        interval: .days(Int.random(in: 1...9, using: &random)),
                        duration: .allDay
                    )
                )
            case 1:
                elements.append(
                    ScheduleElement(
                        start: start,
                        end: end,
                        interval: .weeks(Int.random(in: 1...2, using: &random)),
                        duration: .minutes(90)
                    )
                )
            case 2:
                elements.append(
                    ScheduleElement(
                        start: start,
                        end: end,
                        interval: .months(Int.random(in: 1...3, using: &random)),
                        duration: .hours(2)
                    )
                )
            case 3:
                elements.append(
                    ScheduleElement(
                        start: start,
                        end: end,
                        interval: .hours(Int.random(in: 5...30, using: &random)),
                        duration: .seconds(0)
                    )
                )
            case 4:
                elements.append(
                    ScheduleElement(
                        start: start,
                        end: end,
                        interval: ScheduleInterval(days: 1, hours: 1),
                        duration: .seconds(600)
                    )
                )
            default:
                let counts = (0..<7).map { _ in Int.random(in: 0...2, using: &random) }
                elements.append(
                    ScheduleElement(
                        weeklyOccurrences: counts.allSatisfy { $0 == 0 } ? [1, 0, 0, 0, 0, 0, 0] : counts,
                        start: start,
                        end: end
                    )
                )
            }
        }
        if elements.isEmpty { elements.append(ScheduleElement(start: wall("2025-01-31T08:00:00"), interval: .days(1))) }
        // A third of the schedules float: they are evaluated in the bridge zone the test passes.
        let policy: TimeZonePolicy = Int.random(in: 0..<3, using: &random) == 0 ? .floating : .fixed(zone)
        return Schedule(timeZonePolicy: policy, elements: elements)
    }

    static func same(_ engine: [ScheduledEvent], _ naive: [NaiveScheduleOracle.Event]) -> Bool {
        engine.count == naive.count
            && zip(engine, naive).allSatisfy {
                $0.occurrence == $1.occurrence && $0.elementIndex == $1.elementIndex && $0.start == $1.start
                    && $0.end == $1.end && $0.isAllDay == $1.isAllDay
            }
    }

    @Test("engine matches a naive walk from the schedule start", arguments: 0..<40)
    func matchesTheNaiveWalk(seed: Int) {
        var random = SeededGenerator(state: UInt64(seed))
        let schedule = Self.randomSchedule(&random)
        let bridge = TimeZone(identifier: Self.zones.randomElement(using: &random)!)!
        let oracle = NaiveScheduleOracle(schedule, bridgeZone: bridge)
        for _ in 0..<4 {
            let from = instant("2026-01-01T00:00:00").addingTimeInterval(
                Double.random(in: 0...(400 * 86_400), using: &random).rounded()
            )
            let to = from.addingTimeInterval(Double.random(in: 3600...(40 * 86_400), using: &random).rounded())
            let engine = schedule.events(from: from, to: to, bridgeZone: bridge)
            let naive = oracle.events(from: from, to: to)
            #expect(Self.same(engine, naive), "\(schedule) \(from)…\(to)\nengine \(engine)\nnaive  \(naive)")
            if let middle = naive.dropFirst(naive.count / 2).first {
                let single = schedule.event(occurrence: middle.occurrence, bridgeZone: bridge)
                #expect(single.map { Self.same([$0], [middle]) } == true, "occurrence \(middle.occurrence)")
            }
            let count = schedule.occurrenceCount(before: from, bridgeZone: bridge)
            #expect(count == oracle.allEvents(until: from).filter { $0.start < from }.count)
            // Auto-completion lookups: the naive events whose window contains the instant.
            for t in [from, from.addingTimeInterval(to.timeIntervalSince(from) / 2).rounded, to.addingTimeInterval(-1)]
            {
                let expected = oracle.events(from: t.addingTimeInterval(-1), to: t.addingTimeInterval(1)).filter {
                    $0.isAllDay
                        ? $0.start <= t && t < $0.end.addingTimeInterval(1)
                        : $0.end > $0.start ? $0.start <= t && t < $0.end : t == $0.start
                }
                let containing = schedule.events(containing: t, bridgeZone: bridge)
                #expect(containing.map(\.occurrence) == expected.map(\.occurrence), "containing \(t)")
            }
        }
    }

    /// Zones whose standard offset changed (not a DST transition): one engine evaluation spans the change.
    @Test(arguments: [
        ("Europe/Moscow", "2014-10-01", "2014-11-30"), ("Asia/Pyongyang", "2015-08-01", "2015-09-01"),
        ("Pacific/Apia", "2011-12-20", "2012-01-10"), ("Europe/Volgograd", "2020-12-01", "2021-01-31"),
    ])
    func matchesTheNaiveWalkAcrossStandardOffsetChanges(zoneName: String, from: String, to: String) {
        let zone = TimeZone(identifier: zoneName)!
        let schedule = Schedule(
            timeZonePolicy: .fixed(zoneName),
            elements: [
                ScheduleElement(start: wall("2010-01-01"), interval: .days(1), duration: .allDay),
                ScheduleElement(start: wall("2010-01-01T02:30:00"), interval: .days(1), duration: .minutes(30)),
                ScheduleElement(start: wall("2010-01-01T00:00:00"), interval: .hours(7), duration: .seconds(0)),
            ]
        )
        let oracle = NaiveScheduleOracle(schedule, bridgeZone: utc)
        let start = instant("\(from)T00:00:00", zone)
        let end = instant("\(to)T00:00:00", zone)
        let engine = schedule.events(from: start, to: end, bridgeZone: utc)
        #expect(engine.count > 50)
        #expect(Self.same(engine, oracle.events(from: start, to: end)))
        // Auto-completion lookups agree with the window query every 3 hours across the change.
        var t = start
        while t < end {
            let containing = schedule.events(containing: t, bridgeZone: utc)
            let expected = engine.filter { $0.contains(t) }
            #expect(containing == expected, "\(zoneName) at \(t)")
            t.addTimeInterval(3 * 3600 + 17)
        }
    }

    @Test func numberingDoesNotDependOnTheQueryWindow() {
        let schedule = Schedule(
            timeZonePolicy: .fixed("Europe/Berlin"),
            elements: [
                ScheduleElement(start: wall("2026-01-01T08:00:00"), interval: .days(1)),
                ScheduleElement(start: wall("2026-01-01T20:00:00"), interval: .days(2)),
                ScheduleElement(weeklyOccurrences: [0, 2, 0, 0, 0, 1, 0], start: wall("2026-01-01")),
            ]
        )
        let whole = schedule.events(
            from: instant("2026-01-01T00:00:00"),
            to: instant("2026-07-01T00:00:00"),
            bridgeZone: utc
        )
        #expect(whole.map(\.occurrence) == Array(0..<whole.count))
        let byOccurrence = Dictionary(uniqueKeysWithValues: whole.map { ($0.occurrence, $0) })
        var day = instant("2026-01-01T00:00:00")
        while day < instant("2026-07-01T00:00:00") {
            for event in schedule.events(from: day, to: day.addingTimeInterval(86_400 * 3), bridgeZone: utc)
            where event.start >= instant("2026-01-01T00:00:00") && event.start < instant("2026-07-01T00:00:00") {
                #expect(byOccurrence[event.occurrence] == event)
            }
            day.addTimeInterval(86_400 * 5)
        }
        // Recomputing from a decoded copy (a "restart") gives the same numbering.
        let copy = try! JSONDecoder().decode(Schedule.self, from: JSONEncoder().encode(schedule))
        #expect(
            copy.events(from: instant("2026-01-01T00:00:00"), to: instant("2026-07-01T00:00:00"), bridgeZone: utc)
                == whole
        )
    }

    @Test func simultaneousEventsAreOrderedByElementIndex() {
        let schedule = Schedule(
            timeZonePolicy: .fixed("UTC"),
            elements: [
                ScheduleElement(start: wall("2026-01-01T08:00:00"), interval: .days(1), duration: .hours(1)),
                ScheduleElement(start: wall("2026-01-01T08:00:00"), interval: .days(1), duration: .minutes(5)),
            ]
        )
        let events = schedule.events(
            from: instant("2026-01-03T00:00:00"),
            to: instant("2026-01-04T00:00:00"),
            bridgeZone: utc
        )
        #expect(events.map(\.elementIndex) == [0, 1])
        #expect(events.map(\.occurrence) == [4, 5])
        #expect(schedule.event(occurrence: 5, bridgeZone: utc)?.elementIndex == 1)
    }

    @Test func fiftyYearOldScheduleNumbersFromItsStart() throws {
        let schedule = Schedule.daily(hour: 9, start: wall("1976-11-21"), timeZone: .fixed("Europe/Berlin"))
        let events = schedule.events(
            from: instant("2026-11-21T00:00:00"),
            to: instant("2026-11-22T00:00:00"),
            bridgeZone: utc
        )
        let days = Calendar(identifier: .gregorian).dateComponents(
            [.day],
            from: instant("1976-11-21T00:00:00"),
            to: instant("2026-11-21T00:00:00")
        ).day!
        #expect(events.map(\.occurrence) == [days])
        #expect(local(try #require(events.first).start, berlin) == "2026-11-21T09:00:00")
        #expect(schedule.occurrenceCount(before: instant("2026-11-21T00:00:00"), bridgeZone: utc) == days)
    }
}

@Suite struct ScheduleEvaluatorTests {
    /// A reused evaluator caches zone offsets and month steps; queries jumping back and forth across decades
    /// must give exactly what a fresh evaluation gives.
    @Test(arguments: ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Pacific/Apia"])
    func reusedEvaluatorAgreesWithFreshQueries(zoneName: String) {
        let schedule = Schedule(
            timeZonePolicy: .fixed(zoneName),
            elements: [
                ScheduleElement(start: wall("1990-01-31T02:30:00"), interval: .months(1), duration: .hours(1)),
                ScheduleElement(start: wall("1990-01-01"), interval: .days(1), duration: .allDay),
                ScheduleElement(start: wall("1990-01-01T01:00:00"), interval: .hours(5), duration: .minutes(20)),
                ScheduleElement(weeklyOccurrences: [1, 0, 2, 0, 0, 0, 1], start: wall("1990-01-03")),
            ]
        )
        let evaluator = ScheduleEvaluator(schedule, bridgeZone: utc)
        var random = SeededGenerator(state: 42)
        let low = instant("1989-06-01T00:00:00").timeIntervalSince1970
        let high = instant("2040-01-01T00:00:00").timeIntervalSince1970
        for _ in 0..<150 {
            let t = Date(timeIntervalSince1970: Double.random(in: low..<high, using: &random).rounded())
            let containing = evaluator.events(containing: t)
            #expect(containing == schedule.events(containing: t, bridgeZone: utc))
            #expect(containing.allSatisfy { $0.contains(t) })
            let window = evaluator.events(from: t, to: t.addingTimeInterval(2 * 86_400))
            #expect(window == schedule.events(from: t, to: t.addingTimeInterval(2 * 86_400), bridgeZone: utc))
            #expect(evaluator.occurrenceCount(before: t) == schedule.occurrenceCount(before: t, bridgeZone: utc))
            if let first = window.first {
                #expect(evaluator.event(occurrence: first.occurrence) == first)
            }
        }
    }
}
