import BridgeCore
import CarePlan
public import CareStore
public import Foundation
import Insights

/// Builds the care report's content from the store: adherence per intervention, the grouped bar chart, vital
/// signs with threshold bands, readings (with their flags), answers and notes, alerts and devices.
public enum ReportBuilder {
    /// - Parameters:
    ///   - patient: the patient's name for the page header; nil: the store's single implicit patient.
    ///   - generatedAt: when the report is made (shown in the header).
    ///   - individualReadings: list every reading (the "Readings" table) instead of the per-day table and the
    ///     flagged readings.
    public static func build(
        store: CareStore,
        from: Date,
        to: Date,
        patient: String? = nil,
        generatedAt: Date = Date(),
        individualReadings: Bool = false
    ) async throws(CareStoreError) -> ReportData {
        let zone = store.bridgeZone
        let insights = try await InsightsBuilder.build(store: store, from: from, to: to, patient: patient)
        let tasks = try await store.tasks().map(\.task)
        let events = try await store.events(matching: EventQuery(from: from, to: to)).filter { $0.start >= from }
        // Readings: every stored sample of the period, blood pressure as pairs, per day (or one by one when asked),
        // the flagged ones listed; and the devices they came from. Read page by page: what is held is what the
        // tables show, not the period.
        var readings = ReadingsTable(zone: zone, flaggedOnly: !individualReadings)
        var daily = DailyReadings(zone: zone)
        var pairer = PressurePairer()
        var devices: [String: (DeviceIdentity, Int, Date)] = [:]
        var cursor = store.sampleCursor(
            matching: SampleQuery(from: from, to: to, quarantine: .included),
            pageSize: Self.pageSize
        )
        let add = { (completed: [PressurePairer.Reading]) in
            for reading in completed {
                readings.add(reading)
                daily.add(reading)
            }
        }
        while let page = try await cursor.next() {
            for stored in page {
                add(pairer.add(stored))
                guard let device = stored.sample.source.device else { continue }
                let key = device.key
                let entry = devices[key] ?? (device, 0, stored.sample.start)
                devices[key] = (entry.0, entry.1 + 1, max(entry.2, stored.sample.start))
            }
        }
        add(pairer.finish())
        let short = { (date: Date) in Self.short(date, zone: zone) }
        let last = to.addingTimeInterval(-1)
        let period = "\(short(from).prefix(10)) – \(short(last).prefix(10))"

        var summary: [String] = []
        for task in insights.tasks {
            guard let rate = task.completion.rate else { continue }
            var line =
                "\(task.title): \(task.completion.completed) of \(task.completion.total) done "
                + "(\(Int((rate * 100).rounded()))%)"
            if let before = task.previousCompletion.rate {
                line += ", the period before \(Int((before * 100).rounded()))%"
            }
            if task.answer == .yesNo {
                // A yes/no answer is counted in days, not averaged: "mean 1" says nothing.
                let answered = task.days.compactMap(\.value)
                line += "; yes on \(answered.filter { $0 > 0 }.count) of \(answered.count) day(s) answered"
            } else if let values = task.values {
                line +=
                    "; mean \(number(values.mean))\(unitSuffix(task.unit)), range \(number(values.min))–"
                    + "\(number(values.max))"
            }
            summary.append(line)
        }
        let openAlerts = insights.alerts.filter(\.isOpen).count
        summary.append("\(insights.alerts.count) alert(s) in the period, \(openAlerts) still open.")

        // Charts: the first intervention beside the first numeric assessment a person answers (else any).
        var charts: [Chart] = []
        let interventions = insights.tasks.filter { $0.kind == .intervention }
        let assessments = insights.tasks.filter { $0.kind == .assessment && $0.unit != nil }
        if let intervention = interventions.first,
            let assessment = assessments.first(where: { $0.answer != nil }) ?? assessments.first
        {
            let values = assessment.days.map(\.value)
            var maximum = values.compactMap { $0 }.max() ?? 1
            if case .scale(_, let max, _, _) = assessment.answer { maximum = max }
            charts.append(
                ChartBuilder.groupedBars(
                    days: insights.days,
                    intervention: intervention.title,
                    completion: intervention.days.map { $0.total == 0 ? nil : Double($0.completed) / Double($0.total) },
                    assessment: assessment.title,
                    values: values,
                    valueMaximum: maximum,
                    valueLabel: assessment.unit == "1"
                        ? "score" : (assessment.unit.map { HealthUnit(rawValue: $0).displaySymbol } ?? "")
                )
            )
        }
        // Blood pressure: systolic and diastolic in one chart (when pairs were measured), with the rules of the
        // tasks linked to them.
        var pressureBands: [ChartBuilder.Band] = []
        var pressureThresholds: [Double] = []
        for insight in insights.tasks where insight.kind == .assessment {
            guard let task = tasks.first(where: { $0.id == insight.id }), let linkage = task.linkage else { continue }
            let (bands, thresholds) = Self.bands(task.alerts, unit: linkage.unit)
            if linkage.type == .bloodPressureSystolic || linkage.type == .bloodPressureDiastolic,
                daily.measures.contains(.bloodPressure)
            {
                // The diastolic's alert region would be read against the systolic line: its limits as lines only.
                if linkage.type == .bloodPressureSystolic { pressureBands += bands }
                pressureThresholds += thresholds
                continue
            }
            guard insight.days.contains(where: { $0.value != nil }) else { continue }
            charts.append(
                ChartBuilder.vitalLine(
                    title: insight.title,
                    days: insights.days,
                    series: [
                        ChartBuilder.Series(
                            name: insight.title,
                            values: insight.days.map(\.value),
                            ranges: insight.days.map { day in
                                day.low.flatMap { low in day.high.map { low...max(low, $0) } }
                            }
                        )
                    ],
                    unit: linkage.unit.displaySymbol,
                    bands: bands,
                    thresholds: thresholds
                )
            )
        }
        if daily.measures.contains(.bloodPressure) {
            let cells = insights.days.map { daily.cell(.bloodPressure, on: $0) }
            charts.append(
                ChartBuilder.vitalLine(
                    title: "Blood pressure",
                    days: insights.days,
                    series: [
                        ChartBuilder.Series(
                            name: "systolic",
                            values: cells.map { $0?.main.mean },
                            ranges: cells.map { $0?.main.range },
                            color: .red
                        ),
                        ChartBuilder.Series(
                            name: "diastolic",
                            values: cells.map { $0?.second.mean },
                            ranges: cells.map { $0?.second.range },
                            color: .blue
                        ),
                    ],
                    unit: "mmHg",
                    bands: pressureBands,
                    thresholds: Array(Set(pressureThresholds)).sorted()
                )
            )
        }

        var tables: [ReportData.Table] = []
        tables.append(
            ReportData.Table(
                title: "Adherence per intervention",
                headers: ["Intervention", "Done", "Not done", "Rate", "Period before"],
                rows: interventions.map { task in
                    [
                        task.title, "\(task.completion.completed) of \(task.completion.total)",
                        String(task.completion.notDone), percent(task.completion.rate),
                        percent(task.previousCompletion.rate),
                    ]
                }
            )
        )
        if !individualReadings {
            var adherence: [String: (completed: Int, total: Int)] = [:]
            for task in interventions {
                for day in task.days {
                    let sum = adherence[day.day] ?? (0, 0)
                    adherence[day.day] = (sum.completed + day.completed, sum.total + day.total)
                }
            }
            tables.append(daily.table(days: insights.days, adherence: adherence))
        }
        tables.append(readings.table())
        // Answers and notes.
        var answerRows: [[String]] = []
        for event in events where event.answer != nil || event.outcome?.note != nil || event.outcome?.isNotDone == true
        {
            guard let outcome = event.outcome else { continue }
            let answer =
                outcome.notDoneReason.map { "not done: \($0)" }
                ?? outcome.values.map { value in
                    event.answer?.display(value: value.value, text: value.text) ?? "done \(short(value.measuredAt))"
                }.joined(separator: ", ")
            let at = outcome.values.first.map { short($0.measuredAt) } ?? short(event.start)
            answerRows.append([at, event.title, answer, outcome.note ?? ""])
        }
        tables.append(
            ReportData.Table(title: "Answers and notes", headers: ["When", "Task", "Answer", "Note"], rows: answerRows)
        )
        // Alerts: open critical ones first, then other open ones, then the handled; withdrawn alerts (a reading
        // corrected or removed) are not in the main list but in their own table, with the reason.
        let rank = { (alert: Alert) in alert.isOpen ? (alert.trip.severity == .critical ? 0 : 1) : 2 }
        let current = insights.alerts.filter { $0.withdrawnAt == nil }.enumerated().sorted { left, right in
            (rank(left.element), left.offset) < (rank(right.element), right.offset)
        }.map(\.element)
        var alertRows: [[String]] = []
        var alertMarks: Set<[Int]> = []
        for alert in current {
            if alert.isOpen, alert.trip.severity == .critical { alertMarks.insert([alertRows.count, 1]) }
            var state = alert.state
            if let by = alert.acknowledgedBy { state += " by \(by)" }
            alertRows.append([
                short(alert.trip.occurredAt), alert.trip.severity.rawValue, alert.trip.message,
                "\(alert.trip.ruleID) v\(alert.trip.taskVersionNumber)", state,
            ])
        }
        tables.append(
            ReportData.Table(
                title: "Alerts",
                note: "Open critical alerts first, then other open alerts, then acknowledged ones.",
                headers: ["When", "Severity", "Message", "Rule", "State"],
                rows: alertRows,
                marked: alertMarks
            )
        )
        let withdrawn = insights.alerts.filter { $0.withdrawnAt != nil }
        if !withdrawn.isEmpty {
            tables.append(
                ReportData.Table(
                    title: "Withdrawn alerts",
                    headers: ["When", "Severity", "Message", "Withdrawn", "Reason"],
                    rows: withdrawn.map { alert in
                        [
                            short(alert.trip.occurredAt), alert.trip.severity.rawValue, alert.trip.message,
                            alert.withdrawnAt.map(short) ?? "", alert.withdrawnReason ?? "",
                        ]
                    }
                )
            )
        }
        // Devices.
        tables.append(
            ReportData.Table(
                title: "Devices",
                headers: ["Device", "Model", "Serial", "Firmware", "Readings", "Last reading"],
                rows: devices.values.sorted { $0.0.key < $1.0.key }.map { device, count, lastSeen in
                    [
                        device.name ?? device.address ?? device.key,
                        [device.manufacturer, device.model].compactMap { $0 }.joined(separator: " "),
                        device.serial ?? "", device.firmware ?? "", String(count), short(lastSeen),
                    ]
                }
            )
        )
        return ReportData(
            title: "Care report",
            patient: "Patient: " + (patient ?? "the person using this bridge"),
            patientDetails: try await patientDetails(store: store),
            period: period,
            generated: "Generated \(short(generatedAt)) (\(zone.identifier)) by CareBridge",
            changes: PeriodChanges.lines(daily: daily, days: insights.days, insights: insights, zone: zone),
            summary: summary,
            charts: charts,
            tables: tables
        )
    }

    /// What identifies the patient beside the name, for every page: birth date, record number, allergies (said to
    /// be unrecorded when the list is empty: that is not "no allergies") and the responsible clinician (the care
    /// team contact whose role names a physician or clinician, else the first care team contact). Empty for a
    /// store without patients.
    static func patientDetails(store: CareStore) async throws(CareStoreError) -> [String] {
        guard let id = store.patientScope, let record = try await store.patient(id: id) else { return [] }
        var details: [String] = []
        if let birthday = record.birthday { details.append("born \(birthday)") }
        let recordNumber = record.identifiers.first { $0.type == "MR" } ?? record.identifiers.first
        details.append("record \(recordNumber?.value ?? "not recorded")")
        details.append(
            record.allergies.isEmpty
                ? "allergies not recorded" : "allergies: \(record.allergies.joined(separator: ", "))"
        )
        let team = try await store.contacts(patientID: id).filter { $0.category == .careTeam }
        let clinical = ["physician", "clinician", "doctor", "gp", "nurse", "cardiolog", "diabetolog"]
        let responsible =
            team.first { contact in
                let role = (contact.role ?? "").lowercased()
                return clinical.contains { role.contains($0) }
            } ?? team.first
        if let responsible {
            let name = [responsible.title, responsible.name].compactMap { $0 }.joined(separator: " ")
            details.append("clinician: \(name)" + (responsible.role.map { " (\($0))" } ?? ""))
        } else {
            details.append("clinician not recorded")
        }
        return details
    }

    /// The chart's bands and threshold lines of a task's numeric rules, in `unit`.
    static func bands(_ rules: [AlertRule], unit: HealthUnit) -> (bands: [ChartBuilder.Band], thresholds: [Double]) {
        var bands: [ChartBuilder.Band] = []
        var thresholds: [Double] = []
        for rule in rules {
            switch rule.condition {
            case .compare(let op, let value, let ruleUnit):
                let threshold = ruleUnit.flatMap { $0.convert(value, to: unit) } ?? value
                thresholds.append(threshold)
                switch op {
                case .greaterThan, .greaterThanOrEqual:
                    bands.append(.init(lower: threshold, upper: .greatestFiniteMagnitude, normal: false))
                case .lessThan, .lessThanOrEqual:
                    bands.append(.init(lower: -.greatestFiniteMagnitude, upper: threshold, normal: false))
                case .equal: break
                }
            case .range(let lower, let upper, let inside, let ruleUnit):
                let low = ruleUnit.flatMap { $0.convert(lower, to: unit) } ?? lower
                let high = ruleUnit.flatMap { $0.convert(upper, to: unit) } ?? upper
                thresholds += [low, high]
                bands.append(.init(lower: low, upper: high, normal: !inside))
            default: break
            }
        }
        return (bands, thresholds)
    }

    /// Samples read from the store at a time.
    static let pageSize = 5_000

    static func short(_ date: Date, zone: TimeZone) -> String {
        let iso = Timestamp.format(date, in: zone)
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5))
    }

    static func number(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
    }

    /// ` mmHg` for the UCUM code `mm[Hg]` (the units people use); nothing for a score or a duration.
    static func unitSuffix(_ unit: String?) -> String {
        guard let unit, unit != "1", unit != "s" else { return "" }
        return " " + (HealthUnit(rawValue: unit).displaySymbol)
    }

    static func percent(_ rate: Double?) -> String { rate.map { "\(Int(($0 * 100).rounded()))%" } ?? "—" }
}
