import ArgumentParser
import BridgeCore
import BridgeFoundation
import CareStore
import Foundation
import MQTTBridge

struct Outbox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the samples waiting to be published over MQTT.",
        discussion: """
            Once a store has been used with --mqtt, every sample stored afterwards (by any command) is queued in \
            its outbox in the same transaction, and removed only when the broker has acknowledged it. This \
            lists what is pending: the count, the oldest entry, and one line per topic (device and quantity \
            type). Pending entries are delivered, in order, by the next `replay --mqtt` (or `run --mqtt`).

            --clear drops the pending entries (they will not be published); --disable also stops queueing \
            until the next run with --mqtt. JSON (--json): {"enabled", "pending", "oldest", "topics": [{"topic", \
            "device", "type", "pending", "oldest", "oldestMeasured"}]}.

            Examples:
              carebridge outbox
              carebridge outbox --clear

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Option(
        name: .customLong("mqtt-topic"),
        help: ArgumentHelp("First topic level, as given to --mqtt-topic.", valueName: "topic")
    )
    var topic = "carebridge"

    @Flag(name: .long, help: "Drop every pending entry.")
    var clear = false

    @Flag(name: .long, help: "Drop every pending entry and stop queueing new samples.")
    var disable = false

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let store = try await storeOptions.open(zone: zone, mode: .existing, patients: .any)
        if clear || disable {
            let dropped = try await StoreExit.attempt {
                disable
                    ? try await store.disableOutbox(channel: CareStore.mqttOutboxChannel)
                    : try await store.clearOutbox(channel: CareStore.mqttOutboxChannel)
            }
            if json {
                print(JSONValue.object(["dropped": .int(dropped), "enabled": .bool(!disable)]).serialized())
            } else {
                print(
                    "dropped \(dropped) pending entr\(dropped == 1 ? "y" : "ies")\(disable ? "; queueing stopped" : "")"
                )
            }
            return
        }
        let summary: OutboxSummary = try await StoreExit.attempt {
            try await store.outboxSummary(channel: CareStore.mqttOutboxChannel)
        }
        let discovery = HomeAssistantDiscovery(topicPrefix: topic)
        if json {
            var object: JSONObject = [
                "enabled": .bool(summary.isEnabled),
                "pending": .int(summary.count),
            ]
            object["oldest"] = summary.oldestEnqueuedAt.map { .string(Timestamp.format($0, in: zone)) } ?? .null
            object["topics"] = .array(
                summary.groups.map { group in
                    var item: JSONObject = [
                        "topic": .string(discovery.stateTopic(deviceKey: group.deviceKey, type: group.type)),
                        "type": .string(group.type.rawValue),
                        "pending": .int(group.count),
                    ]
                    item["device"] = group.deviceKey.map { .string($0) } ?? .null
                    item["oldest"] = .string(Timestamp.format(group.oldestEnqueuedAt, in: zone))
                    item["oldestMeasured"] = .string(Timestamp.format(group.oldestSampleStart, in: zone))
                    return .object(item)
                }
            )
            print(JSONValue.object(object).serialized(pretty: Output.isTerminal))
            return
        }
        guard summary.count > 0 else {
            print(summary.isEnabled ? "outbox empty" : "outbox empty (not queueing: no run with --mqtt yet)")
            return
        }
        let oldest = summary.oldestEnqueuedAt.map { Timestamp.format($0, in: zone) } ?? "-"
        print("\(summary.count) pending, oldest queued \(oldest)")
        var table = Table(["TOPIC", "PENDING", "OLDEST QUEUED", "OLDEST MEASURED"])
        for group in summary.groups {
            table.append([
                discovery.stateTopic(deviceKey: group.deviceKey, type: group.type), "\(group.count)",
                Timestamp.format(group.oldestEnqueuedAt, in: zone), Timestamp.format(group.oldestSampleStart, in: zone),
            ])
        }
        print(table.render())
    }
}
