import BridgeFoundation
public import CarePlan

extension HomeAssistantDiscovery {
    /// `<topicPrefix>/plan/<task>`: the level of a task's `state` (retained JSON) and `complete` (the button's
    /// commands); `<task>` is the task id reduced like a device key.
    public func planTopic(task: String) -> String {
        "\(topicPrefix)/plan/\(Self.deviceID(key: task))"
    }

    /// `<topicPrefix>/plan/+/complete`: what the bridge subscribes to for the buttons' commands.
    public var planCommandFilter: String { "\(topicPrefix)/plan/+/complete" }

    /// The task id level of a command topic (`<topicPrefix>/plan/<task>/complete`); nil for any other topic.
    public func commandTaskLevel(_ topic: String) -> String? {
        let parts = topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let prefix = topicPrefix.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == prefix.count + 3, Array(parts.prefix(prefix.count)) == prefix,
            parts[prefix.count] == "plan", parts[prefix.count + 2] == "complete"
        else { return nil }
        return parts[prefix.count + 1]
    }

    /// The retained discovery config of a task's sensor: its state today (`done`, `due`, `overdue`, `not done`,
    /// `none` without an event today) and, as attributes, the next due time and today's counts; available while
    /// the bridge runs (the state moves with the clock).
    public func taskConfig(_ task: CareTask) -> Message {
        let id = "carebridge_plan_\(Self.deviceID(key: task.id))"
        var config: JSONObject = [
            "name": .string(task.title),
            "unique_id": .string(id),
            "object_id": .string(id),
            "state_topic": .string("\(planTopic(task: task.id))/state"),
            "value_template": .string("{{ value_json.state }}"),
            "json_attributes_topic": .string("\(planTopic(task: task.id))/state"),
            "icon": .string("mdi:clipboard-check-outline"),
            "device": .object(planDevice),
        ]
        for member in availability([.bridge]).members { config[member.key] = member.value }
        return Message(topic: "\(discoveryPrefix)/sensor/\(id)/config", payload: .object(config), retain: true)
    }

    /// The retained discovery config of an intervention's button: pressing it sends `token` (the current event,
    /// ``PlanEventToken``) to `<planTopic>/complete`; the config is announced again whenever the current event
    /// changes, so a press from an older config names an event that is no longer current and is refused.
    public func buttonConfig(_ task: CareTask, token: String) -> Message {
        let id = "carebridge_plan_\(Self.deviceID(key: task.id))_complete"
        var config: JSONObject = [
            "name": .string("\(task.title) done"),
            "unique_id": .string(id),
            "object_id": .string(id),
            "command_topic": .string("\(planTopic(task: task.id))/complete"),
            "payload_press": .string(token),
            "qos": .int(1),
            "icon": .string("mdi:check-circle-outline"),
            "device": .object(planDevice),
        ]
        for member in availability([.bridge]).members { config[member.key] = member.value }
        return Message(topic: "\(discoveryPrefix)/button/\(id)/config", payload: .object(config), retain: true)
    }

    /// The retained discovery config of the day's adherence (`%` of today's events done) of one patient (nil: the
    /// store's only patient).
    public func adherenceConfig(patient: PatientTag?) -> Message {
        let level = patient.map { "_\(Self.deviceID(key: $0.id))" } ?? ""
        let id = "carebridge_plan_adherence\(level)"
        var config: JSONObject = [
            "name": .string("Adherence today" + (patient.map { " (\($0.name))" } ?? "")),
            "unique_id": .string(id),
            "object_id": .string(id),
            "state_topic": .string(adherenceTopic(patient: patient)),
            "value_template": .string("{{ value_json.percent }}"),
            "json_attributes_topic": .string(adherenceTopic(patient: patient)),
            "unit_of_measurement": .string("%"),
            "state_class": .string("measurement"),
            "suggested_display_precision": .int(0),
            "device": .object(planDevice),
        ]
        for member in availability([.bridge]).members { config[member.key] = member.value }
        return Message(topic: "\(discoveryPrefix)/sensor/\(id)/config", payload: .object(config), retain: true)
    }

    /// `<topicPrefix>/plan/<patient>/adherence` (`all` for the store's only patient): four levels, so no sample
    /// state topic (`<topicPrefix>/<device>/<type>`) and no task topic (ending in `state` or `complete`) is the same.
    public func adherenceTopic(patient: PatientTag?) -> String {
        "\(topicPrefix)/plan/\(patient.map { Self.deviceID(key: $0.id) } ?? "all")/adherence"
    }

    var planDevice: JSONObject {
        [
            "identifiers": .array([.string("carebridge_plan")]),
            "name": .string("CareBridge care plan"),
            "manufacturer": .string("CareBridge"),
        ]
    }
}
