import BridgeCore
import BridgeFoundation
public import Foundation

/// A care plan as read from a plan file: the tasks to create or version.
///
/// Format (JSON):
/// ```json
/// {"tasks": [{"id": "weigh-in", "title": "Weigh yourself", "kind": "assessment",
///   "schedule": {"timeZone": "Europe/Berlin",
///                "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
///   "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"}}]}
/// ```
/// Task keys: `id`, `title`, `kind` (required); `instructions`, `groupIdentifier`, `tags`, `impactsAdherence`
/// (default true), `effectiveDate` (ISO-8601; without an offset a wall-clock time in the schedule's zone),
/// `linkage` (assessments only). Schedule: `timeZone` (IANA id or `"floating"`, the default), `elements`.
/// Element: `start` (wall-clock), `end`, `interval` (`days`, `weeks`, `months`, `hours`, `minutes`),
/// `duration` (`"allDay"` or seconds; default 3600), `text`, `targetValues` (`[{"value": 8000, "unit": "…"}]`),
/// or the weekly form `{"start": …, "weekly": [0,4,0,2,0,4,0]}` (counts from Sunday). Unknown keys are errors.
///
/// People (optional): `"patient": {"id", "name", "birthday": "YYYY-MM-DD", "sex": female|male|other|unknown,
/// "allergies": [..], "identifiers": [{"system", "value", "type": "MR"}]}`, `"plan": {"id", "title"}` (the
/// patient's plan these tasks belong to; default: the patient's first plan) and `"contacts": [{"id", "name",
/// "category": careTeam|personal, "role", "title", "organization", "phones", "messagingNumbers", "emails",
/// "address", "receives": ["reports", "alerts"], "alertSeverity": info|warning|critical}]` (`alertSeverity`: the
/// least severe alert the contact is e-mailed; default every alert).
///
/// Retention (optional, store-wide): `"retention": {"heartRate": {"keepRawDays": 90, "aggregateMinutes": 1}}`
/// (``RetentionPolicy``).
public struct CarePlanDocument: Sendable, Hashable {
    public var tasks: [CareTask]
    /// The patient the file is for (added or versioned when applied), if it names one.
    public var patient: Patient?
    /// The plan the tasks belong to (its `patientID` is the file's patient, or empty when the file names none).
    public var plan: PatientPlan?
    /// The plan's contacts (their `planID` is filled in when the plan is known).
    public var contacts: [CareContact]
    /// The store's retention policy, when the file has a `"retention"` key (nil: leave the stored one alone).
    public var retention: RetentionPolicy?

    public init(
        tasks: [CareTask],
        patient: Patient? = nil,
        plan: PatientPlan? = nil,
        contacts: [CareContact] = [],
        retention: RetentionPolicy? = nil
    ) {
        self.tasks = tasks
        self.patient = patient
        self.plan = plan
        self.contacts = contacts
        self.retention = retention
    }

    /// Reads and validates a plan file; nothing is returned unless the whole file is valid.
    /// - Parameters:
    ///   - data: the file's bytes (UTF-8 JSON).
    ///   - path: the file name to put in errors.
    ///   - bridgeZone: the configured zone, for `effectiveDate`s of floating schedules.
    /// - Throws: ``CarePlanError`` naming the file, the JSON path and the problem.
    public static func parse(_ data: Data, path: String, bridgeZone: TimeZone) throws(CarePlanError) -> CarePlanDocument
    {
        let root: JSONValue
        do {
            root = try JSONValue.parse(Array(data), options: .strict)
        } catch {
            throw CarePlanError(
                path: path,
                location: "line \(error.line), column \(error.column)",
                message: "invalid JSON: \(error.message)"
            )
        }
        let reader = PlanReader(path: path, bridgeZone: bridgeZone)
        return try reader.document(root)
    }
}

/// Walks the parsed JSON, keeping the JSON path for errors.
private struct PlanReader {
    let path: String
    let bridgeZone: TimeZone

    func fail(_ location: String, _ message: String) -> CarePlanError {
        CarePlanError(path: path, location: location, message: message)
    }

    func object(_ value: JSONValue, _ at: String, keys allowed: [String]) throws(CarePlanError) -> JSONObject {
        guard case .object(let object) = value else { throw fail(at, "expected an object, got \(kind(value))") }
        for key in object.keys where !allowed.contains(key) {
            throw fail(join(at, key), "unknown key \"\(key)\" (expected one of: \(allowed.joined(separator: ", ")))")
        }
        return object
    }

    func join(_ at: String, _ key: String) -> String { at.isEmpty ? key : "\(at).\(key)" }

    func kind(_ value: JSONValue) -> String { value.kindDescription }

    func string(
        _ object: JSONObject,
        _ key: String,
        _ at: String,
        required: Bool = false
    ) throws(CarePlanError) -> String? {
        guard let value = object[key], value != .null else {
            if required { throw fail(join(at, key), "missing required key \"\(key)\"") }
            return nil
        }
        guard case .string(let text) = value else { throw fail(join(at, key), "expected a string, got \(kind(value))") }
        return text
    }

    func array(
        _ object: JSONObject,
        _ key: String,
        _ at: String,
        required: Bool = false
    ) throws(CarePlanError) -> [JSONValue]? {
        guard let value = object[key], value != .null else {
            if required { throw fail(join(at, key), "missing required key \"\(key)\"") }
            return nil
        }
        guard case .array(let values) = value else {
            throw fail(join(at, key), "expected an array, got \(kind(value))")
        }
        return values
    }

    func number(_ value: JSONValue, _ at: String) throws(CarePlanError) -> Double {
        switch value {
        case .int(let number): return Double(number)
        case .double(let number) where number.isFinite: return number
        default: throw fail(at, "expected a number, got \(kind(value))")
        }
    }

    /// A whole number; one too large to be exact (`1e19`) is refused as out of range. The caller's
    /// `validationProblem` checks the field's own range (``PlanLimits``).
    func integer(_ value: JSONValue, _ at: String) throws(CarePlanError) -> Int {
        switch value {
        case .int(let number): return number
        case .double(let number) where number == number.rounded() && abs(number) < 1e15: return Int(number)
        case .double(let number) where number == number.rounded() && number.isFinite:
            throw fail(at, "\(number) is out of range (whole numbers up to ±1e15)")
        default: throw fail(at, "expected a whole number, got \(kind(value))")
        }
    }

    func document(_ root: JSONValue) throws(CarePlanError) -> CarePlanDocument {
        let object = try self.object(root, "", keys: ["tasks", "patient", "plan", "contacts", "retention"])
        let retention = try object["retention"].map { value throws(CarePlanError) in
            try RetentionPolicy.parse(value, path: path)
        }
        let patient = try object["patient"].map { value throws(CarePlanError) in try self.patient(value, "patient") }
        var plan: PatientPlan?
        if let value = object["plan"] {
            let at = "plan"
            let fields = try self.object(value, at, keys: ["id", "title"])
            guard let id = try string(fields, "id", at, required: true), !id.isEmpty else {
                throw fail(join(at, "id"), "plan id must not be empty")
            }
            plan = PatientPlan(id: id, title: try string(fields, "title", at) ?? id, patientID: patient?.id ?? "")
        }
        var contacts: [CareContact] = []
        // Ids seen, by where: a linear search per contact made a long contact list quadratic.
        var seenContacts: [String: Int] = [:]
        for (index, item) in (try array(object, "contacts", "") ?? []).enumerated() {
            let contact = try self.contact(item, "contacts[\(index)]", planID: plan?.id ?? "")
            if let first = seenContacts[contact.id] {
                throw fail(
                    "contacts[\(index)].id",
                    "duplicate contact id \"\(contact.id)\" (also contacts[\(first)].id)"
                )
            }
            seenContacts[contact.id] = index
            contacts.append(contact)
        }
        guard
            let items = try array(
                object,
                "tasks",
                "",
                required: patient == nil && contacts.isEmpty && retention == nil
            )
        else {
            return CarePlanDocument(tasks: [], patient: patient, plan: plan, contacts: contacts, retention: retention)
        }
        var tasks: [CareTask] = []
        var seen: [String: Int] = [:]
        for (index, item) in items.enumerated() {
            let at = "tasks[\(index)]"
            let task = try self.task(item, at)
            if let first = seen[task.id] {
                throw fail(join(at, "id"), "duplicate task id \"\(task.id)\" (also tasks[\(first)].id)")
            }
            seen[task.id] = index
            tasks.append(task)
        }
        return CarePlanDocument(tasks: tasks, patient: patient, plan: plan, contacts: contacts, retention: retention)
    }

    func strings(_ object: JSONObject, _ key: String, _ at: String) throws(CarePlanError) -> [String] {
        var result: [String] = []
        for (index, item) in (try array(object, key, at) ?? []).enumerated() {
            guard case .string(let text) = item, !text.isEmpty else {
                throw fail(join(at, "\(key)[\(index)]"), "expected a non-empty string, got \(kind(item))")
            }
            result.append(text)
        }
        return result
    }

    func patient(_ value: JSONValue, _ at: String) throws(CarePlanError) -> Patient {
        let object = try self.object(value, at, keys: ["id", "name", "birthday", "sex", "allergies", "identifiers"])
        let id = try string(object, "id", at, required: true) ?? ""
        let name = try string(object, "name", at, required: true) ?? ""
        var sex: Patient.Sex?
        if let text = try string(object, "sex", at) {
            guard let value = Patient.Sex(rawValue: text) else {
                throw fail(join(at, "sex"), "unknown sex \"\(text)\" (expected female, male, other or unknown)")
            }
            sex = value
        }
        var identifiers: [PatientIdentifier] = []
        for (index, item) in (try array(object, "identifiers", at) ?? []).enumerated() {
            let itemAt = join(at, "identifiers[\(index)]")
            let fields = try self.object(item, itemAt, keys: ["system", "value", "type"])
            identifiers.append(
                PatientIdentifier(
                    system: try string(fields, "system", itemAt),
                    value: try string(fields, "value", itemAt, required: true) ?? "",
                    type: try string(fields, "type", itemAt)
                )
            )
        }
        let patient = Patient(
            id: id,
            name: name,
            birthday: try string(object, "birthday", at),
            sex: sex,
            allergies: try strings(object, "allergies", at),
            identifiers: identifiers
        )
        if let problem = patient.validationProblem { throw fail(at, problem) }
        return patient
    }

    func contact(_ value: JSONValue, _ at: String, planID: String) throws(CarePlanError) -> CareContact {
        let keys = [
            "id", "name", "category", "role", "title", "organization", "phones", "messagingNumbers", "emails",
            "address", "receives", "alertSeverity",
        ]
        let object = try self.object(value, at, keys: keys)
        guard let id = try string(object, "id", at, required: true), !id.isEmpty else {
            throw fail(join(at, "id"), "contact id must not be empty")
        }
        guard let name = try string(object, "name", at, required: true), !name.isEmpty else {
            throw fail(join(at, "name"), "name must not be empty")
        }
        let categoryText = try string(object, "category", at) ?? "careTeam"
        guard let category = CareContact.Category(rawValue: categoryText) else {
            throw fail(join(at, "category"), "unknown category \"\(categoryText)\" (expected careTeam or personal)")
        }
        var receives: [CareContact.Delivery] = []
        for (index, text) in try strings(object, "receives", at).enumerated() {
            guard let delivery = CareContact.Delivery(rawValue: text) else {
                throw fail(join(at, "receives[\(index)]"), "unknown delivery \"\(text)\" (expected reports or alerts)")
            }
            receives.append(delivery)
        }
        var alertSeverity: AlertSeverity?
        if let text = try string(object, "alertSeverity", at) {
            guard let severity = AlertSeverity(rawValue: text) else {
                throw fail(
                    join(at, "alertSeverity"),
                    "unknown severity \"\(text)\" (expected info, warning or critical)"
                )
            }
            alertSeverity = severity
        }
        return CareContact(
            id: id,
            planID: planID,
            name: name,
            category: category,
            role: try string(object, "role", at),
            title: try string(object, "title", at),
            organization: try string(object, "organization", at),
            phones: try strings(object, "phones", at),
            messagingNumbers: try strings(object, "messagingNumbers", at),
            emails: try strings(object, "emails", at),
            address: try string(object, "address", at),
            receives: receives,
            alertSeverity: alertSeverity
        )
    }

    func task(_ value: JSONValue, _ at: String) throws(CarePlanError) -> CareTask {
        let keys = [
            "id", "title", "kind", "instructions", "groupIdentifier", "tags", "impactsAdherence", "schedule",
            "linkage", "effectiveDate", "answer", "alerts",
        ]
        let object = try self.object(value, at, keys: keys)
        guard let id = try string(object, "id", at, required: true), !id.isEmpty else {
            throw fail(join(at, "id"), "task id must not be empty")
        }
        guard let title = try string(object, "title", at, required: true), !title.isEmpty else {
            throw fail(join(at, "title"), "title must not be empty")
        }
        let kindText = try string(object, "kind", at, required: true) ?? ""
        guard let kind = TaskKind(rawValue: kindText) else {
            throw fail(join(at, "kind"), "unknown kind \"\(kindText)\" (expected intervention or assessment)")
        }
        var tags: [String] = []
        for (index, tag) in (try array(object, "tags", at) ?? []).enumerated() {
            guard case .string(let text) = tag else {
                throw fail(join(at, "tags[\(index)]"), "expected a string, got \(self.kind(tag))")
            }
            tags.append(text)
        }
        var impactsAdherence = true
        if let flag = object["impactsAdherence"], flag != .null {
            guard case .bool(let value) = flag else {
                throw fail(join(at, "impactsAdherence"), "expected true or false, got \(self.kind(flag))")
            }
            impactsAdherence = value
        }
        guard let scheduleValue = object["schedule"] else {
            throw fail(join(at, "schedule"), "missing required key \"schedule\"")
        }
        let schedule = try self.schedule(scheduleValue, join(at, "schedule"))
        var linkage: SampleLinkage?
        if let linkageValue = object["linkage"], linkageValue != .null {
            if kind == .intervention {
                throw fail(
                    join(at, "linkage"),
                    "an intervention is completed by the patient and cannot have a sample linkage "
                        + "(use \"kind\": \"assessment\")"
                )
            }
            linkage = try self.linkage(linkageValue, join(at, "linkage"))
        }
        var answer: AnswerFormat?
        if let answerValue = object["answer"], answerValue != .null {
            if kind == .intervention || linkage != nil {
                throw fail(
                    join(at, "answer"),
                    "only an assessment without a linkage is answered by a person (remove \"answer\" or \"linkage\")"
                )
            }
            answer = try self.answer(answerValue, join(at, "answer"))
        }
        var alerts: [AlertRule] = []
        for (index, item) in (try array(object, "alerts", at) ?? []).enumerated() {
            let ruleAt = join(at, "alerts[\(index)]")
            let rule = try self.rule(item, ruleAt)
            let numeric = linkage != nil || (answer?.isNumeric ?? false)
            if let problem = rule.validationProblem(kind: kind, numeric: numeric) {
                throw fail(join(ruleAt, problem.field), problem.message)
            }
            if alerts.contains(where: { $0.id == rule.id }) {
                throw fail(join(ruleAt, "id"), "duplicate rule id \"\(rule.id)\"")
            }
            alerts.append(rule)
        }
        var effectiveDate: Date?
        if let text = try string(object, "effectiveDate", at) {
            do {
                effectiveDate = try Timestamp.parse(text, in: schedule.timeZonePolicy.zone(bridge: bridgeZone))
            } catch {
                throw fail(join(at, "effectiveDate"), error.description)
            }
        }
        return CareTask(
            id: id,
            title: title,
            instructions: try string(object, "instructions", at),
            kind: kind,
            groupIdentifier: try string(object, "groupIdentifier", at),
            tags: tags,
            impactsAdherence: impactsAdherence,
            schedule: schedule,
            linkage: linkage,
            answer: answer,
            alerts: alerts,
            effectiveDate: effectiveDate
        )
    }

    func answer(_ value: JSONValue, _ at: String) throws(CarePlanError) -> AnswerFormat {
        let object = try self.object(value, at, keys: ["type", "min", "max", "step", "labels", "options"])
        let type = try string(object, "type", at, required: true) ?? ""
        let format: AnswerFormat
        switch type {
        case "scale":
            guard let minValue = object["min"] else { throw fail(join(at, "min"), "missing required key \"min\"") }
            guard let maxValue = object["max"] else { throw fail(join(at, "max"), "missing required key \"max\"") }
            var labels: [Double: String] = [:]
            if let labelValue = object["labels"], labelValue != .null {
                guard case .object(let labelObject) = labelValue else {
                    throw fail(join(at, "labels"), "expected an object such as {\"0\": \"none\"}")
                }
                for member in labelObject.members {
                    let (key, text) = (member.key, member.value)
                    guard let number = AnswerFormat.number(key) else {
                        throw fail(join(at, "labels.\(key)"), "label keys are values on the scale")
                    }
                    guard case .string(let label) = text else {
                        throw fail(join(at, "labels.\(key)"), "expected a string, got \(kind(text))")
                    }
                    labels[number] = label
                }
            }
            format = .scale(
                min: try number(minValue, join(at, "min")),
                max: try number(maxValue, join(at, "max")),
                step: try object["step"].map { value throws(CarePlanError) in try number(value, join(at, "step")) }
                    ?? 1,
                labels: labels
            )
        case "choice":
            var options: [String] = []
            for (index, item) in (try array(object, "options", at, required: true) ?? []).enumerated() {
                guard case .string(let text) = item, !text.isEmpty else {
                    throw fail(join(at, "options[\(index)]"), "expected a non-empty string, got \(kind(item))")
                }
                options.append(text)
            }
            format = .choice(options)
        case "yesNo": format = .yesNo
        case "text": format = .text
        case "duration": format = .duration
        case "count": format = .count
        default:
            throw fail(
                join(at, "type"),
                "unknown answer type \"\(type)\" (expected scale, yesNo, choice, text, duration or count)"
            )
        }
        let allowed: Set<String> =
            switch format {
            case .scale: ["type", "min", "max", "step", "labels"]
            case .choice: ["type", "options"]
            default: ["type"]
            }
        for key in object.keys.sorted() where !allowed.contains(key) {
            throw fail(join(at, key), "\"\(key)\" does not apply to a \(type) answer")
        }
        if let problem = format.validationProblem { throw fail(join(at, problem.field), problem.message) }
        return format
    }

    func rule(_ value: JSONValue, _ at: String) throws(CarePlanError) -> AlertRule {
        let object = try self.object(value, at, keys: ["id", "severity", "when", "trend", "adherence", "message"])
        guard let id = try string(object, "id", at, required: true), !id.isEmpty else {
            throw fail(join(at, "id"), "rule id must not be empty")
        }
        var severity = AlertSeverity.warning
        if let text = try string(object, "severity", at) {
            guard let parsed = AlertSeverity(rawValue: text) else {
                throw fail(join(at, "severity"), "unknown severity \"\(text)\" (expected info, warning or critical)")
            }
            severity = parsed
        }
        let present = ["when", "trend", "adherence"].filter { object[$0] != nil }
        guard present.count == 1 else {
            throw fail(at, "a rule needs exactly one of \"when\", \"trend\" or \"adherence\"")
        }
        let condition: AlertCondition
        switch present[0] {
        case "when":
            let whenAt = join(at, "when")
            let when = try self.object(
                object["when"]!,
                whenAt,
                keys: [">", ">=", "≥", "<", "<=", "≤", "==", "=", "inside", "outside", "unit"]
            )
            let unit = try self.unit(when, whenAt)
            let keys = when.keys.filter { $0 != "unit" }
            guard keys.count == 1, let key = keys.first else {
                throw fail(whenAt, "expected one comparison (>, >=, <, <=, ==) or \"inside\"/\"outside\"")
            }
            if key == "inside" || key == "outside" {
                guard case .array(let bounds) = when[key]!, bounds.count == 2 else {
                    throw fail(join(whenAt, key), "expected [lower, upper]")
                }
                let lower = try number(bounds[0], join(whenAt, "\(key)[0]"))
                let upper = try number(bounds[1], join(whenAt, "\(key)[1]"))
                condition = .range(lower: lower, upper: upper, inside: key == "inside", unit: unit)
            } else {
                condition = .compare(
                    ComparisonOperator(symbol: key)!,
                    try number(when[key]!, join(whenAt, key)),
                    unit: unit
                )
            }
        case "trend":
            let trendAt = join(at, "trend")
            let trend = try self.object(object["trend"]!, trendAt, keys: ["rise", "fall", "withinDays", "unit"])
            let unit = try self.unit(trend, trendAt)
            let change: Double
            switch (trend["rise"], trend["fall"]) {
            case (let rise?, nil): change = try number(rise, join(trendAt, "rise"))
            case (nil, let fall?): change = -(try number(fall, join(trendAt, "fall")))
            default: throw fail(trendAt, "expected one of \"rise\" or \"fall\"")
            }
            guard let days = trend["withinDays"] else {
                throw fail(join(trendAt, "withinDays"), "missing required key \"withinDays\"")
            }
            condition = .trend(change: change, days: try integer(days, join(trendAt, "withinDays")), unit: unit)
        default:
            let adherenceAt = join(at, "adherence")
            let adherence = try self.object(object["adherence"]!, adherenceAt, keys: ["fewerThan", "by"])
            guard let fewer = adherence["fewerThan"] else {
                throw fail(join(adherenceAt, "fewerThan"), "missing required key \"fewerThan\"")
            }
            var by: Int?
            if let text = try string(adherence, "by", adherenceAt) {
                guard let minutes = AlertRule.minutes(ofDay: text) else {
                    throw fail(join(adherenceAt, "by"), "expected a time of day HH:MM, got \"\(text)\"")
                }
                by = minutes
            }
            condition = .adherence(fewerThan: try integer(fewer, join(adherenceAt, "fewerThan")), by: by)
        }
        return AlertRule(id: id, severity: severity, condition: condition, message: try string(object, "message", at))
    }

    func unit(_ object: JSONObject, _ at: String) throws(CarePlanError) -> HealthUnit? {
        guard let text = try string(object, "unit", at) else { return nil }
        guard let unit = HealthUnit(parsing: text) else { throw fail(join(at, "unit"), "unknown unit \"\(text)\"") }
        return unit
    }

    func schedule(_ value: JSONValue, _ at: String) throws(CarePlanError) -> Schedule {
        let object = try self.object(value, at, keys: ["timeZone", "elements"])
        var policy = TimeZonePolicy.floating
        if let text = try string(object, "timeZone", at) {
            guard let parsed = TimeZonePolicy(parsing: text) else {
                throw fail(
                    join(at, "timeZone"),
                    "unknown time zone \"\(text)\" (use an IANA identifier such as Europe/Berlin, or \"floating\")"
                )
            }
            policy = parsed
        }
        let items = try array(object, "elements", at, required: true) ?? []
        if items.isEmpty { throw fail(join(at, "elements"), "a schedule needs at least one element") }
        var elements: [ScheduleElement] = []
        for (index, item) in items.enumerated() {
            elements.append(try element(item, join(at, "elements[\(index)]")))
        }
        return Schedule(timeZonePolicy: policy, elements: elements)
    }

    func wallClock(
        _ object: JSONObject,
        _ key: String,
        _ at: String,
        required: Bool
    ) throws(CarePlanError) -> WallClockTime? {
        guard let text = try string(object, key, at, required: required) else { return nil }
        do {
            return try WallClockTime(parsing: text)
        } catch {
            throw fail(join(at, key), error.description)
        }
    }

    func element(_ value: JSONValue, _ at: String) throws(CarePlanError) -> ScheduleElement {
        let keys = ["start", "end", "interval", "duration", "text", "targetValues", "weekly"]
        let object = try self.object(value, at, keys: keys)
        guard let start = try wallClock(object, "start", at, required: true) else { throw fail(at, "missing start") }
        let end = try wallClock(object, "end", at, required: false)
        let text = try string(object, "text", at)
        var targets: [TargetValue] = []
        for (index, item) in (try array(object, "targetValues", at) ?? []).enumerated() {
            targets.append(try target(item, join(at, "targetValues[\(index)]")))
        }
        let element: ScheduleElement
        if let weekly = try array(object, "weekly", at) {
            if object["interval"] != nil {
                throw fail(join(at, "interval"), "a weekly element repeats every week; remove \"interval\"")
            }
            if let duration = object["duration"], duration != .string("allDay") {
                throw fail(join(at, "duration"), "weekly occurrences are all-day events; remove \"duration\"")
            }
            var counts: [Int] = []
            for (index, item) in weekly.enumerated() {
                counts.append(try integer(item, join(at, "weekly[\(index)]")))
            }
            element = ScheduleElement(
                weeklyOccurrences: counts,
                start: start,
                end: end,
                text: text,
                targetValues: targets
            )
        } else {
            guard let intervalValue = object["interval"] else {
                throw fail(join(at, "interval"), "missing required key \"interval\" (or \"weekly\")")
            }
            let interval = try self.interval(intervalValue, join(at, "interval"))
            var duration = EventDuration.hours(1)
            if let durationValue = object["duration"], durationValue != .null {
                switch durationValue {
                case .string("allDay"): duration = .allDay
                case .int, .double: duration = .seconds(try number(durationValue, join(at, "duration")))
                default:
                    throw fail(
                        join(at, "duration"),
                        "expected \"allDay\" or a number of seconds, got \(kind(durationValue))"
                    )
                }
            }
            element = ScheduleElement(
                start: start,
                end: end,
                interval: interval,
                duration: duration,
                text: text,
                targetValues: targets
            )
        }
        if let problem = element.validationProblem { throw fail(join(at, problem.field), problem.message) }
        return element
    }

    func interval(_ value: JSONValue, _ at: String) throws(CarePlanError) -> ScheduleInterval {
        let names = ["days", "weeks", "months", "hours", "minutes"]
        let object = try self.object(value, at, keys: names)
        var components: [String: Int] = [:]
        for name in names {
            if let item = object[name] {
                let number = try integer(item, join(at, name))
                if number < 0 { throw fail(join(at, name), "must not be negative (got \(number))") }
                if let problem = PlanLimits.problem(number, in: PlanLimits.intervalComponent) {
                    throw fail(join(at, name), problem)
                }
                components[name] = number
            }
        }
        let interval = ScheduleInterval(
            days: components["days"] ?? 0,
            weeks: components["weeks"] ?? 0,
            months: components["months"] ?? 0,
            hours: components["hours"] ?? 0,
            minutes: components["minutes"] ?? 0
        )
        if let problem = interval.validationProblem { throw fail(at, problem) }
        return interval
    }

    func target(_ value: JSONValue, _ at: String) throws(CarePlanError) -> TargetValue {
        let object = try self.object(value, at, keys: ["value", "unit"])
        guard let number = object["value"] else { throw fail(join(at, "value"), "missing required key \"value\"") }
        var unit: HealthUnit?
        if let text = try string(object, "unit", at) {
            guard let parsed = HealthUnit(parsing: text) else {
                throw fail(join(at, "unit"), "unknown unit \"\(text)\"")
            }
            unit = parsed
        }
        return TargetValue(value: try self.number(number, join(at, "value")), unit: unit)
    }

    func linkage(_ value: JSONValue, _ at: String) throws(CarePlanError) -> SampleLinkage {
        let object = try self.object(value, at, keys: ["type", "unit", "aggregation"])
        let typeText = try string(object, "type", at, required: true) ?? ""
        guard let type = QuantityType(rawValue: typeText) else {
            let known = QuantityType.allCases.map(\.rawValue).joined(separator: ", ")
            throw fail(join(at, "type"), "unknown quantity type \"\(typeText)\" (known: \(known))")
        }
        var unit = type.canonicalUnit
        if let unitText = try string(object, "unit", at) {
            guard let parsed = HealthUnit(parsing: unitText) else {
                throw fail(join(at, "unit"), "unknown unit \"\(unitText)\"")
            }
            unit = parsed
        }
        let aggregationText = try string(object, "aggregation", at) ?? Aggregation.each.rawValue
        guard let aggregation = Aggregation(rawValue: aggregationText) else {
            let known = Aggregation.allCases.map(\.rawValue).joined(separator: ", ")
            throw fail(
                join(at, "aggregation"),
                "unknown aggregation \"\(aggregationText)\" (expected one of: \(known))"
            )
        }
        let linkage = SampleLinkage(type: type, unit: unit, aggregation: aggregation)
        if let problem = linkage.validationProblem { throw fail(join(at, problem.field), problem.message) }
        return linkage
    }
}
