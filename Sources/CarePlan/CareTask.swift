import BridgeCore
public import Foundation

/// A task of a care plan: one version's content (the store adds version identity and dates).
public struct CareTask: Sendable, Hashable, Codable, Identifiable {
    /// Developer id, stable across versions (`weigh-in`).
    public var id: String
    public var title: String
    public var instructions: String?
    public var kind: TaskKind
    public var groupIdentifier: String?
    public var tags: [String]
    /// Whether the task counts toward adherence (default true).
    public var impactsAdherence: Bool
    public var schedule: Schedule
    /// Only assessments carry a linkage.
    public var linkage: SampleLinkage?
    /// What a person answers (assessments without a linkage): a scale, yes/no, a choice, text, a duration, a count.
    public var answer: AnswerFormat?
    /// Thresholds that raise alerts; their version is the task version.
    public var alerts: [AlertRule]
    /// When this version takes effect; nil = the schedule's start.
    public var effectiveDate: Date?

    public init(
        id: String,
        title: String,
        instructions: String? = nil,
        kind: TaskKind,
        groupIdentifier: String? = nil,
        tags: [String] = [],
        impactsAdherence: Bool = true,
        schedule: Schedule,
        linkage: SampleLinkage? = nil,
        answer: AnswerFormat? = nil,
        alerts: [AlertRule] = [],
        effectiveDate: Date? = nil
    ) {
        self.id = id
        self.title = title
        self.instructions = instructions
        self.kind = kind
        self.groupIdentifier = groupIdentifier
        self.tags = tags
        self.impactsAdherence = impactsAdherence
        self.schedule = schedule
        self.linkage = linkage
        self.answer = answer
        self.alerts = alerts
        self.effectiveDate = effectiveDate
    }

    /// Whether the task's values are numbers thresholds can compare (a linkage or a numeric answer).
    public var hasNumericValues: Bool { linkage != nil || (answer?.isNumeric ?? false) }

    /// The effective date, defaulting to the schedule's first instant in `bridgeZone`'s terms.
    public func effectiveDate(bridgeZone: TimeZone) -> Date {
        if let effectiveDate { return effectiveDate }
        let zone = schedule.timeZonePolicy.zone(bridge: bridgeZone)
        return (schedule.start ?? WallClockTime(year: 1970, month: 1, day: 1)).date(in: zone)
    }

    /// Why the task cannot be used, with the JSON-path-like field, or nil.
    public var validationProblem: (field: String, message: String)? {
        if id.isEmpty { return ("id", "task id must not be empty") }
        if title.isEmpty { return ("title", "title must not be empty") }
        if let problem = schedule.validationProblem { return ("schedule.\(problem.field)", problem.message) }
        if let linkage {
            if kind == .intervention {
                return ("linkage", "an intervention is completed by the patient and cannot have a sample linkage")
            }
            if let problem = linkage.validationProblem { return ("linkage.\(problem.field)", problem.message) }
        }
        if let answer {
            if kind == .intervention || linkage != nil {
                return ("answer", "only an assessment without a linkage is answered by a person")
            }
            if let problem = answer.validationProblem { return ("answer.\(problem.field)", problem.message) }
        }
        var ruleIDs: Set<String> = []
        for (index, rule) in alerts.enumerated() {
            if let problem = rule.validationProblem(kind: kind, numeric: hasNumericValues) {
                return ("alerts[\(index)].\(problem.field)", problem.message)
            }
            if !ruleIDs.insert(rule.id).inserted {
                return ("alerts[\(index)].id", "duplicate rule id \"\(rule.id)\"")
            }
        }
        return nil
    }

    // MARK: - Codable (the plan-file task form; `effectiveDate` as ISO-8601 UTC)

    private enum CodingKeys: String, CodingKey {
        case id, title, instructions, kind, groupIdentifier, tags, impactsAdherence, schedule, linkage, answer, alerts
        case effectiveDate
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        instructions = try container.decodeIfPresent(String.self, forKey: .instructions)
        kind = try container.decode(TaskKind.self, forKey: .kind)
        groupIdentifier = try container.decodeIfPresent(String.self, forKey: .groupIdentifier)
        tags = try container.decodeIfPresent([String].self, forKey: .tags) ?? []
        impactsAdherence = try container.decodeIfPresent(Bool.self, forKey: .impactsAdherence) ?? true
        schedule = try container.decode(Schedule.self, forKey: .schedule)
        linkage = try container.decodeIfPresent(SampleLinkage.self, forKey: .linkage)
        answer = try container.decodeIfPresent(AnswerFormat.self, forKey: .answer)
        alerts = try container.decodeIfPresent([AlertRule].self, forKey: .alerts) ?? []
        if let text = try container.decodeIfPresent(String.self, forKey: .effectiveDate) {
            do {
                effectiveDate = try Timestamp.parse(text, in: TimeZone(secondsFromGMT: 0)!)
            } catch {
                throw DecodingError.dataCorruptedError(
                    forKey: .effectiveDate,
                    in: container,
                    debugDescription: error.description
                )
            }
        }
        if let problem = validationProblem {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "\(problem.field): \(problem.message)")
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encodeIfPresent(instructions, forKey: .instructions)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(groupIdentifier, forKey: .groupIdentifier)
        if !tags.isEmpty { try container.encode(tags, forKey: .tags) }
        try container.encode(impactsAdherence, forKey: .impactsAdherence)
        try container.encode(schedule, forKey: .schedule)
        try container.encodeIfPresent(linkage, forKey: .linkage)
        try container.encodeIfPresent(answer, forKey: .answer)
        if !alerts.isEmpty { try container.encode(alerts, forKey: .alerts) }
        if let effectiveDate {
            try container.encode(
                Timestamp.format(effectiveDate, in: TimeZone(secondsFromGMT: 0)!),
                forKey: .effectiveDate
            )
        }
    }
}
