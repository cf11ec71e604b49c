public import BridgeCore
public import Foundation

/// What completes a task's events.
public enum TaskKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Shown on a care card and completed by the patient (`carebridge complete`).
    case intervention
    /// A measurement or survey; with a ``SampleLinkage`` it is completed by samples.
    case assessment
}

/// How the samples that fall into one event window become outcome values.
public enum Aggregation: String, Sendable, Hashable, Codable, CaseIterable {
    /// Every sample becomes a value (CareKit's discrete linkage).
    case each
    case first, last, min, max, mean
    /// One summed value (CareKit's cumulative linkage).
    case sum
}

/// Links an assessment task to a quantity type: samples of that type complete its events.
public struct SampleLinkage: Sendable, Hashable, Codable {
    public var type: QuantityType
    /// The unit outcome values are expressed in; must convert to and from `type.canonicalUnit`.
    public var unit: HealthUnit
    public var aggregation: Aggregation

    public init(type: QuantityType, unit: HealthUnit, aggregation: Aggregation) {
        self.type = type
        self.unit = unit
        self.aggregation = aggregation
    }

    /// Why the linkage cannot be used (the unit does not measure the type), with the field, or nil.
    public var validationProblem: (field: String, message: String)? {
        if unit.convert(1, to: type.canonicalUnit) == nil {
            return ("unit", "unit '\(unit)' cannot express \(type.title) (canonical unit \(type.canonicalUnit))")
        }
        return nil
    }

    private enum CodingKeys: String, CodingKey { case type, unit, aggregation }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(QuantityType.self, forKey: .type)
        let text = try container.decode(String.self, forKey: .unit)
        unit = HealthUnit(parsing: text) ?? HealthUnit(rawValue: text)
        aggregation = try container.decode(Aggregation.self, forKey: .aggregation)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(unit.rawValue, forKey: .unit)
        try container.encode(aggregation, forKey: .aggregation)
    }
}

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
        self.effectiveDate = effectiveDate
    }

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
        return nil
    }

    // MARK: - Codable (the plan-file task form; `effectiveDate` as ISO-8601 UTC)

    private enum CodingKeys: String, CodingKey {
        case id, title, instructions, kind, groupIdentifier, tags, impactsAdherence, schedule, linkage, effectiveDate
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
        if let effectiveDate {
            try container.encode(Timestamp.format(effectiveDate, in: TimeZone(secondsFromGMT: 0)!), forKey: .effectiveDate)
        }
    }
}
