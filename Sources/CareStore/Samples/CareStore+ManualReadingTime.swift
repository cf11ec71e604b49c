public import BridgeCore
import CarePlan
public import Foundation

extension CareStore {
    /// How long ago a reading typed in by hand may have been measured without being forced: older ones are
    /// usually a typo (a year off), and recording one re-evaluates the alert rules of every day since.
    public static let manualReadingHorizon: TimeInterval = 7 * 86_400

    /// Checks the time a reading typed in by hand was measured (`ingest --at`) as a completion's time is
    /// checked: more than ``futureTolerance`` after `now` is refused, and so is more than
    /// ``manualReadingHorizon`` before it, naming what recording it would re-evaluate (the tasks whose rules
    /// are judged again from that day on, and those linked to the types whose past events it may complete).
    /// `force` accepts both.
    /// - Parameters:
    ///   - measured: when the reading was measured.
    ///   - types: the quantity types of the samples it makes.
    /// - Throws: ``CareStoreError`` `.futureTime` or `.pastTime`, with the date.
    public func checkManualReadingTime(
        _ measured: Date,
        types: Set<QuantityType>,
        now: Date = Date(),
        force: Bool
    ) async throws(CareStoreError) {
        let old = measured < now.addingTimeInterval(-Self.manualReadingHorizon)
        let versions = !force && old ? try await ruleTaskVersions(linkedTo: types) : []
        try Self.checkManualReadingTime(
            measured,
            types: types,
            now: now,
            zone: bridgeZone,
            force: force,
            versions: versions
        )
    }

    /// The pure part of ``checkManualReadingTime(_:types:now:force:)``, for a store that does not exist yet
    /// (nothing to re-evaluate: `versions` empty) as for one that does.
    /// - Parameter versions: ``ruleTaskVersions(linkedTo:)`` of `types`.
    public static func checkManualReadingTime(
        _ measured: Date,
        types: Set<QuantityType>,
        now: Date,
        zone: TimeZone,
        force: Bool,
        versions: [StoredTask]
    ) throws(CareStoreError) {
        guard !force else { return }
        if measured > now.addingTimeInterval(futureTolerance) {
            throw CareStoreError(
                .futureTime,
                "\(Timestamp.format(measured, in: zone)) is in the future (now "
                    + "\(Timestamp.format(now.addingTimeInterval(-now.timeIntervalSince1970.truncatingRemainder(dividingBy: 1)), in: zone))); "
                    + "a reading is recorded when it was measured. Check --at, or pass --force to record it anyway",
                date: measured
            )
        }
        guard measured < now.addingTimeInterval(-manualReadingHorizon) else { return }
        let deleted = Set(versions.filter { $0.deletedDate != nil }.map(\.id))
        let live = versions.filter { !deleted.contains($0.id) }
        let ruled = Set(live.filter { !$0.task.alerts.isEmpty }.map(\.id)).sorted()
        let linked = Set(live.filter { $0.task.linkage.map { types.contains($0.type) } ?? false }.map(\.id)).sorted()
        let days = Int((now.timeIntervalSince(measured) / 86_400).rounded(.down))
        var effects: [String] = []
        if !linked.isEmpty { effects.append("could complete past events of \(list(linked))") }
        if !ruled.isEmpty {
            effects.append(
                "would re-evaluate the alert rules of \(list(ruled)) for every day from "
                    + "\(Timestamp.format(measured, in: zone).prefix(10)) to today (\(days + 1) days)"
            )
        }
        let what =
            effects.isEmpty
            ? "would re-evaluate nothing (no task has rules or a link to it)" : effects.joined(separator: " and ")
        throw CareStoreError(
            .pastTime,
            "\(Timestamp.format(measured, in: zone)) is \(days) days ago (more than "
                + "\(Int(manualReadingHorizon / 86_400))): recording it \(what). Check --at (a year off?), or pass "
                + "--force to record it anyway",
            date: measured
        )
    }

    /// `'a', 'b' and 'c'`; more than five as `'a', 'b', 'c', 'd' and 3 more`.
    private static func list(_ ids: [String]) -> String {
        let quoted = ids.map { "'\($0)'" }
        if quoted.count > 5 { return quoted.prefix(4).joined(separator: ", ") + " and \(quoted.count - 4) more" }
        guard let last = quoted.last, quoted.count > 1 else { return quoted.first ?? "" }
        return quoted.dropLast().joined(separator: ", ") + " and " + last
    }
}
