import CarePlan
import CareStore
import Foundation
import GRDB

/// One year of events for the 20-task plan, with 1, 5 and 20 years of history (every past event has an
/// outcome), to show the query cost does not grow with history.
let storeQueryBenchmark = Benchmark(
    name: "store-query",
    summary: "events for one year, 20 tasks, with 1/5/20 years of history"
) {
    let queryStart = WallClockTime(year: 2046, month: 1, day: 1)
    let queryEnd = WallClockTime(year: 2047, month: 1, day: 1)
    let from = queryStart.date(in: berlin)
    let to = queryEnd.date(in: berlin)
    for years in [1, 5, 20] {
        let directory = try benchmarkDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try CareStore(
            path: directory.appendingPathComponent("store.sqlite").path,
            bridgeZone: berlin,
            logger: quietLogger
        )
        let historyStart = WallClockTime(year: 2046 - years + 1, month: 1, day: 1)
        try await store.applyPlan(benchmarkPlan(start: historyStart))
        // An outcome with one value for every event of the history, the queried year included.
        let tasks = try await store.tasks()
        let outcomes = try await store.databaseWriter.write { db -> Int in
            let outcome = try db.makeStatement(
                sql: """
                    INSERT INTO outcome (taskUUID, taskID, occurrence, eventStart, eventEnd, createdDate, updatedDate)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """
            )
            let value = try db.makeStatement(
                sql: """
                    INSERT INTO outcomeValue (outcomeID, position, value, unit, measuredAt, sampleID, recordedAt)
                    VALUES (?, 0, 1, '1', ?, NULL, ?)
                    """
            )
            var total = 0
            for stored in tasks {
                let events = stored.task.schedule.events(
                    from: historyStart.date(in: berlin),
                    to: to,
                    bridgeZone: berlin
                )
                for event in events {
                    let start = event.start.timeIntervalSince1970
                    try outcome.execute(arguments: [
                        stored.version.uuidString.lowercased(), stored.id, event.occurrence, start,
                        event.end.timeIntervalSince1970, start, start,
                    ])
                    try value.execute(arguments: [db.lastInsertedRowID, start, start])
                    total += 1
                }
            }
            return total
        }
        var timings: [Double] = []
        var cpu: [Double] = []
        var count = 0
        for _ in 0..<40 {
            let elapsed = try await measure {
                count = try await store.events(matching: EventQuery(from: from, to: to)).count
            }
            timings.append(elapsed.wall * 1000)
            cpu.append(elapsed.cpu * 1000)
        }
        timings.sort()
        cpu.sort()
        print(
            String(
                format:
                    "history %2d year(s), %7d outcomes: one year = %d events; wall median %.1f ms (min %.1f), CPU median %.1f ms",
                years,
                outcomes,
                count,
                timings[timings.count / 2],
                timings[0],
                cpu[cpu.count / 2]
            )
        )
    }
}
