import BridgeCore
import Foundation
import GRDB

/// Where a new sample goes: a patient (with how that was decided) or the unassigned inbox (with why).
struct SampleRoute: Sendable, Hashable {
    var patientID: String?
    var inboxReason: String?
    var routedBy: String?

    /// A store without patients: the implicit patient, as before patients existed.
    static let implicit = SampleRoute()

    static func patient(_ id: String, by rule: String) -> SampleRoute {
        SampleRoute(patientID: id, routedBy: rule)
    }

    static func inbox(_ reason: String) -> SampleRoute {
        SampleRoute(inboxReason: reason)
    }

    var isInbox: Bool { inboxReason != nil }
}

/// Decides the patient of each new sample in the store layer (``CareStore/recordSamples(_:recordedAt:)``), so
/// that every path that stores readings routes them the same way. The rules, in order:
///
/// 1. A store value scoped to a patient (`--patient`) puts every sample there (`explicit`).
/// 2. A store with no patient keeps everything with the implicit patient; with one patient, everything goes to
///    it (`only patient`): a single-patient store works as before.
/// 3. A manual reading without a patient goes to the inbox.
/// 4. A device reading with a user slot (`userID` metadata) goes to the slot's owner
///    (`carebridge devices assign DEVICE --slot N PATIENT`); else to the whole device's owner (assigned without
///    `--slot`).
/// 5. A device shared by several patients without slots (`devices assign DEVICE --shared PATIENT`) is matched
///    by **weight band**: each sharing patient's reference is the median of their last five body-mass readings
///    in the 90 days before; a weigh-in goes to the one patient whose reference is within
///    ``bandTolerance(reference:)`` of it. The other values of the same measurement (same device and time: fat,
///    BMI, …) go with it. No reference, no patient in band (a guest) or two in band: the inbox.
/// 6. Anything else goes to the inbox, with the reason (which device, which slot).
///
/// A device is named by its address or its serial number (the serial survives a changed random address).
struct SampleRouter {
    /// Who may own a reading: the live patients and the device assignments, read once and kept between writes
    /// (``IngestSession``) until a patient or an assignment changes.
    struct Registry: Sendable {
        fileprivate struct OwnerKey: Hashable {
            var device: String
            var slot: Int?
        }
        fileprivate let patients: [String]
        fileprivate var owners: [OwnerKey: String] = [:]
        fileprivate var slotted: Set<String> = []
        fileprivate var shared: [String: [String]] = [:]

        init(db: Database) throws {
            patients = try CareStore.livePatients(db).map(\.id)
            guard patients.count > 1 else { return }
            for row in try Row.fetchAll(db, sql: "SELECT device, slot, patientID, shared FROM deviceAssignment") {
                let device = (row[0] as String).uppercased()
                let slot: Int? = row[1]
                if row[3] as Bool {
                    shared[device, default: []].append(row[2])
                } else {
                    owners[OwnerKey(device: device, slot: slot)] = row[2] as String
                    if slot != nil { slotted.insert(device) }
                }
            }
        }
    }

    private let scope: String?
    private let registry: Registry
    /// Decisions per measurement (device key + start), so the values of one weigh-in stay together.
    private var measurements: [String: SampleRoute] = [:]
    private let batch: [QuantitySample]
    private var weights: [String: Double]?

    /// - Parameters:
    ///   - registry: the store's patients and device assignments as they are now.
    ///   - scope: the patient every sample goes to (a store value scoped with `--patient`), or nil.
    ///   - batch: the samples of this write (a shared scale's weigh-in is matched by its weight in it).
    init(registry: Registry, scope: String?, batch: [QuantitySample]) {
        self.registry = registry
        self.scope = scope
        self.batch = batch
    }

    /// The allowed distance between a weigh-in and a patient's reference weight: 3 % of it, at least 1.5 kg.
    static func bandTolerance(reference: Double) -> Double { max(1.5, reference * 0.03) }

    /// The route of one sample, stored before the next is routed (so a history download's earlier weigh-ins are
    /// references for its later ones).
    mutating func route(_ sample: QuantitySample, db: Database) throws -> SampleRoute {
        if let scope { return .patient(scope, by: "explicit") }
        let patients = registry.patients
        guard patients.count > 1 else { return patients.first.map { .patient($0, by: "only patient") } ?? .implicit }
        guard let identity = sample.source.device else {
            return .inbox("a \(sample.source.kind.rawValue) reading with no patient named (--patient)")
        }
        let names = [identity.address, identity.serial].compactMap { $0?.uppercased() }
        let label = identity.address ?? identity.serial ?? identity.name ?? "an unnamed device"
        let slotText = sample.metadata["userID"]
        let slot = slotText.flatMap { Int($0) }
        if let slot {
            for name in names {
                if let owner = registry.owners[Registry.OwnerKey(device: name, slot: slot)] {
                    return .patient(owner, by: "user slot \(slot) of \(label)")
                }
            }
        }
        for name in names {
            if let owner = registry.owners[Registry.OwnerKey(device: name, slot: nil)] {
                return .patient(owner, by: "device \(label)")
            }
        }
        if let sharing = names.compactMap({ registry.shared[$0] }).first {
            return try weightBand(sample, db: db, device: names[0], label: label, patients: sharing)
        }
        if let slotText, names.contains(where: registry.slotted.contains) {
            return .inbox(
                "user slot \(slotText) of \(label) has no owner (carebridge devices assign \(label) --slot N PATIENT)"
            )
        }
        if let slotText {
            return .inbox(
                "\(label) (user slot \(slotText)) has no owner (carebridge devices assign \(label) [--slot N] PATIENT)"
            )
        }
        return .inbox("\(label) has no owner (carebridge devices assign \(label) PATIENT)")
    }

    private mutating func weightBand(
        _ sample: QuantitySample,
        db: Database,
        device: String,
        label: String,
        patients sharing: [String]
    ) throws -> SampleRoute {
        let key = "\(device)|\(sample.start.timeIntervalSince1970)"
        if let decided = measurements[key] { return decided }
        if weights == nil {
            var found: [String: Double] = [:]
            for item in batch where item.type == .bodyMass {
                guard
                    let name = [item.source.device?.address, item.source.device?.serial].compactMap({ $0?.uppercased() }
                    ).first,
                    let kilograms = item.unit.convert(item.value, to: .kilogram)
                else { continue }
                found["\(name)|\(item.start.timeIntervalSince1970)"] = kilograms
            }
            weights = found
        }
        let route: SampleRoute
        if let weight = weights?[key] {
            route = try matchWeight(weight, at: sample.start, db: db, label: label, patients: sharing)
        } else {
            route = .inbox(
                "\(label) is shared (\(sharing.joined(separator: ", "))) and this measurement has no weight to match"
            )
        }
        measurements[key] = route
        return route
    }

    private func matchWeight(
        _ weight: Double,
        at instant: Date,
        db: Database,
        label: String,
        patients sharing: [String]
    ) throws -> SampleRoute {
        var inBand: [(String, Double, Double)] = []
        var bands: [String] = []
        var without: [String] = []
        let statement = try db.cachedStatement(
            sql: """
                SELECT r.detail, r.transmittedValue, s.unit, s.transmittedUnit
                FROM sampleRow AS r JOIN sampleSeries AS s ON s.id = r.series
                WHERE r.type = (SELECT code FROM quantityType WHERE name = 'bodyMass')
                AND r.route IN (SELECT id FROM sampleRoute WHERE patientID = ?) AND r.start < ? AND r.start >= ?
                AND (r.state IS NULL OR r.state & \(SampleTable.deletedBit | SampleTable.quarantinedBit) = 0)
                ORDER BY r.start DESC LIMIT 5
                """
        )
        for patient in sharing.sorted() {
            let start = SampleTable.millisecondsCeiling(instant)
            let rows = try Row.fetchAll(statement, arguments: [patient, start, start - 90 * 86_400_000])
            var values: [Double] = []
            for row in rows {
                let unit = HealthUnit(rawValue: row[2])
                guard
                    let value = try SampleDetail(json: row[0]).value
                        ?? HealthUnit(rawValue: row[3]).convert(row[1], to: unit),
                    let kilograms = unit.convert(value, to: .kilogram)
                else { continue }
                values.append(kilograms)
            }
            values.sort()
            guard !values.isEmpty else {
                without.append(patient)
                continue
            }
            let reference = values[values.count / 2]
            let tolerance = Self.bandTolerance(reference: reference)
            bands.append("\(patient) \(Self.kilograms(reference)) ± \(Self.kilograms(tolerance))")
            if abs(weight - reference) <= tolerance { inBand.append((patient, reference, tolerance)) }
        }
        let shown = Self.kilograms(weight)
        if inBand.count == 1 {
            let (patient, reference, tolerance) = inBand[0]
            return .patient(
                patient,
                by: "weight band of \(label): \(shown) within \(Self.kilograms(tolerance)) of \(patient)'s recent "
                    + Self.kilograms(reference)
            )
        }
        if inBand.count > 1 {
            return .inbox("\(shown) on shared \(label) fits several patients (\(bands.joined(separator: "; ")))")
        }
        let missing = without.isEmpty ? "" : "; no recent weight for \(without.joined(separator: ", "))"
        let known = bands.isEmpty ? "" : " outside every band (\(bands.joined(separator: "; ")))"
        return .inbox("\(shown) on shared \(label)\(known)\(missing): a guest, or assign it")
    }

    static func kilograms(_ value: Double) -> String { String(format: "%.1f kg", value) }
}
