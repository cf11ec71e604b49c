import BridgeFoundation
import CarePlan
public import CareStore
public import Foundation

extension SyncMessage {
    /// A task version as it goes up to the hub: kind `taskVersion`, the version's uuid (lowercase), the bridge's
    /// outbox sequence, and `{"task", "key", "versionNumber", "previousVersion", "effectiveDate", "createdDate",
    /// "deletedDate", "zone"}`: the task as its plan file writes it (`id` is its name in the plan; `key` the bridge's
    /// store-wide key for it, the same unless another patient used the name first), its dates as seconds
    /// since 1970 (exact: the hub computes events from them) and the zone of the bridge (a floating schedule's).
    /// - Returns: nil for a version of no patient's plan, or one that cannot be written.
    public static func taskVersion(_ version: StoredTask, sequence: Int64, zone: TimeZone) -> SyncMessage? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let patient = version.patientID,
            let data = try? encoder.encode(version.planTask),
            let task = try? JSONValue.parse(Array(data))
        else { return nil }
        let seconds = { (date: Date?) -> JSONValue in date.map { .double($0.timeIntervalSince1970) } ?? .null }
        return SyncMessage(
            kind: .taskVersion,
            id: version.version.uuidString.lowercased(),
            sequence: sequence,
            patient: patient,
            body: .object([
                "task": task, "key": .string(version.id),
                "versionNumber": .int(version.versionNumber),
                "previousVersion": version.previousVersion.map { .string($0.uuidString.lowercased()) } ?? .null,
                "effectiveDate": seconds(version.effectiveDate), "createdDate": seconds(version.createdDate),
                "deletedDate": seconds(version.deletedDate), "zone": .string(zone.identifier),
            ])
        )
    }

    /// A `taskVersion` message's body read back: the version (of `patient`) and the zone of the bridge that made
    /// it; nil when a field is missing or unusable.
    static func taskVersion(id: String, patient: String, body: String) -> (version: StoredTask, zone: TimeZone)? {
        guard let object = (try? JSONValue.parse(Array(body.utf8)))?.objectValue,
            let uuid = UUID(uuidString: id),
            let taskJSON = object["task"], taskJSON.objectValue != nil,
            var task = try? JSONDecoder().decode(CareTask.self, from: Data(taskJSON.serialized().utf8)),
            case .int(let number)? = object["versionNumber"],
            let effective = object["effectiveDate"]?.doubleValue,
            let created = object["createdDate"]?.doubleValue,
            let zone = object["zone"]?.stringValue.flatMap(TimeZone.init(identifier:))
        else { return nil }
        let name = task.id
        task.id = object["key"]?.stringValue ?? name
        let version = StoredTask(
            task: task,
            version: uuid,
            versionNumber: number,
            previousVersion: object["previousVersion"]?.stringValue.flatMap(UUID.init(uuidString:)),
            effectiveDate: Date(timeIntervalSince1970: effective),
            createdDate: Date(timeIntervalSince1970: created),
            deletedDate: object["deletedDate"]?.doubleValue.map(Date.init(timeIntervalSince1970:)),
            patientID: patient,
            name: name
        )
        return (version, zone)
    }
}
