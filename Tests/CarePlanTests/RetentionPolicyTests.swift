import BridgeCore
import BridgeFoundation
import CarePlan
import Foundation
import Testing

@Suite struct RetentionPolicyTests {
    func parse(_ json: String) throws(CarePlanError) -> CarePlanDocument {
        try CarePlanDocument.parse(Data(json.utf8), path: "plan.json", bridgeZone: berlin)
    }

    @Test func readsRulesWithDefaultsAndAFileWithOnlyRetention() throws {
        let document = try parse(
            """
            {"retention": {"heartRate": {"keepRawDays": 90, "aggregateMinutes": 5}, "rrInterval": {"keepRawDays": 30}}}
            """
        )
        #expect(document.tasks.isEmpty)
        let policy = try #require(document.retention)
        #expect(
            policy.rules == [
                RetentionRule(type: .heartRate, keepRawDays: 90, aggregateMinutes: 5),
                RetentionRule(type: .rrInterval, keepRawDays: 30, aggregateMinutes: 1),
            ]
        )
        #expect(policy.rule(for: .bodyMass) == nil)
        #expect(policy.rule(for: .rrInterval)?.bucketSeconds == 60)
    }

    @Test func aPlanWithoutRetentionLeavesThePolicyUnset() throws {
        let document = try parse(#"{"tasks": []}"#)
        #expect(document.retention == nil)
        #expect(try parse(#"{"retention": {}}"#).retention == RetentionPolicy())
    }

    @Test(
        "policy errors name the file, the JSON path and the problem",
        arguments: [
            (#"{"retention": [1]}"#, "plan.json: retention: expected an object of quantity types, got an array"),
            (
                #"{"retention": {"heartrate": {"keepRawDays": 3}}}"#,
                "plan.json: retention.heartrate: unknown quantity type \"heartrate\""
            ),
            (#"{"retention": {"heartRate": 30}}"#, "plan.json: retention.heartRate: expected an object such as"),
            (
                #"{"retention": {"heartRate": {}}}"#,
                "plan.json: retention.heartRate.keepRawDays: missing required key \"keepRawDays\""
            ),
            (
                #"{"retention": {"heartRate": {"keepRawDays": 0}}}"#,
                "plan.json: retention.heartRate.keepRawDays: keepRawDays must be between 1 and 36500, got 0"
            ),
            (
                #"{"retention": {"heartRate": {"keepRawDays": "30d"}}}"#,
                "plan.json: retention.heartRate.keepRawDays: expected a whole number, got the string"
            ),
            (
                #"{"retention": {"heartRate": {"keepRawDays": 30, "aggregateMinutes": 7}}}"#,
                "plan.json: retention.heartRate.aggregateMinutes: aggregateMinutes must divide a day"
            ),
            (
                #"{"retention": {"rrInterval": {"keepRawDays": 30, "keepDays": 3}}}"#,
                "plan.json: retention.rrInterval.keepDays: unknown key \"keepDays\" (expected one of: keepRawDays, aggregateMinutes)"
            ),
        ]
    )
    func rejects(json: String, message: String) throws {
        do {
            _ = try parse(json)
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error.description)")
        }
    }

    @Test func roundTripsThroughItsJSONForm() throws {
        let policy = RetentionPolicy(rules: [RetentionRule(type: .heartRate, keepRawDays: 90, aggregateMinutes: 15)])
        let text = #"{"retention": "# + policy.json.serialized() + "}"
        #expect(try parse(text).retention == policy)
    }
}
