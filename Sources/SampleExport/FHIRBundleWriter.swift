import BridgeCore
import BridgeFoundation
public import Foundation
import GATTDecoding

/// Writes samples as a FHIR R4 `Bundle` of vital-signs Observations, one entry at a time.
///
/// Nothing is held beyond what pairing blood pressure needs (a systolic waits for its diastolic for at most
/// ``Options/pairingWindow`` records) and the set of devices already written, so memory stays flat however many
/// samples go through. Each entry is one line of output.
///
/// - Observations: `status` final, category vital-signs, LOINC code(s) and profile from ``VitalSignCoding``,
///   UCUM `valueQuantity`, `effectiveDateTime` (or `effectivePeriod` when start ≠ end), `identifier`
///   `urn:carebridge:sample|<sample id>`, `device` referencing the Device entry.
/// - Blood pressure: a systolic and a diastolic sample from the same payload (same device, characteristic,
///   time and raw bytes, or the same manual entry) become one 85354-9 panel with two components.
/// - Devices: one `Device` per source device, written just before its first Observation, `fullUrl`
///   `urn:uuid:<SHA256.uuid(for: "device|<key>")>`, `identifier` `urn:carebridge:device|<address>`.
/// - Manual readings carry `meta.tag` `urn:carebridge:reading-source|patient-reported` and, with a subject,
///   `performer` = the subject.
/// - Transaction bundles: every entry is `POST` with `ifNoneExist: identifier=<system>|<value>`, so posting the
///   same export twice creates nothing new.
/// - Types with no code are skipped and counted in ``ExportSummary/skipped``.
public final class FHIRBundleWriter {
    /// `Bundle.type`.
    public enum BundleType: String, Sendable, CaseIterable {
        case collection
        case transaction
    }

    public struct Options: Sendable {
        public var bundleType: BundleType
        /// Reference to the patient, e.g. `Patient/123` (vital-signs profiles expect one).
        public var subject: String?
        /// The patient, written as a `Patient` resource in the bundle and referenced as every Observation's
        /// subject (unless ``subject`` names a reference instead).
        public var patient: FHIRPatient?
        /// Zone in which times are written (the offset is always explicit).
        public var timeZone: TimeZone
        /// `Bundle.timestamp`, when given.
        public var timestamp: Date?
        /// How many records a lone systolic or diastolic waits for its partner.
        public var pairingWindow: Int
        /// The gateway (CareBridge) every device reading names as its PHD IG `gatewayDevice`.
        public var gateway: FHIRGateway

        public init(
            bundleType: BundleType = .collection,
            subject: String? = nil,
            timeZone: TimeZone = .current,
            timestamp: Date? = nil,
            pairingWindow: Int = 16,
            patient: FHIRPatient? = nil,
            gateway: FHIRGateway = .unnamed
        ) {
            self.gateway = gateway
            self.bundleType = bundleType
            self.subject = subject
            self.patient = patient
            self.timeZone = timeZone
            self.timestamp = timestamp
            self.pairingWindow = max(1, pairingWindow)
        }
    }

    /// Identifier system of Observations (value: sample id, or the panel id for blood pressure).
    public static let sampleIdentifierSystem = "urn:carebridge:sample"
    /// Identifier system of Devices (value: the device key, its address when known).
    public static let deviceIdentifierSystem = "urn:carebridge:device"
    /// Identifier system of the store's patient ids on Patient resources.
    public static let patientIdentifierSystem = "urn:carebridge:patient"
    /// Tag system marking how a reading was taken.
    public static let readingSourceSystem = "urn:carebridge:reading-source"

    public let options: Options
    private let sink: ExportSink
    var formatter: ZoneFormatter
    private var summary = ExportSummary()
    private var started = false
    private var entries = 0
    private var finished = false
    /// Devices already written: key → reference (`urn:uuid:…`) and display name.
    private var writtenDevices: [String: DeviceReference] = [:]
    private var gatewayWritten = false
    /// Coincident time stamps already written (their keys).
    private var writtenCoincident: Set<String> = []
    private var pending: [(key: PairKey, record: ExportRecord, serial: Int)] = []
    private var serial = 0
    /// `code` JSON by primary code and text: the same few concepts repeat for every Observation.
    private var concepts: [String: String] = [:]

    /// - Parameters:
    ///   - options: bundle type, subject, zone.
    ///   - sink: receives the text in order.
    public init(options: Options = Options(), sink: @escaping ExportSink) {
        self.options = options
        self.sink = sink
        self.formatter = ZoneFormatter(zone: options.timeZone)
        self.subject =
            options.subject
            ?? options.patient.map { "urn:uuid:" + UUIDText.lowercase(SHA256.uuid(for: "patient|\($0.id)")) }
    }

    /// The reference every Observation's `subject` carries.
    private let subject: String?
    private var patientWritten = false

    /// Writes the Patient resource before the first Observation.
    private func writePatientIfNeeded() throws {
        guard !patientWritten, options.subject == nil, let patient = options.patient, let subject else { return }
        patientWritten = true
        try writeEntry(
            type: "Patient",
            fullUrl: subject,
            resource: Self.patientResource(patient),
            identifierSystem: Self.patientIdentifierSystem,
            identifier: patient.id
        )
    }

    static func patientResource(_ patient: FHIRPatient) -> String {
        var out = "{\"resourceType\":\"Patient\",\"identifier\":[{\"system\":\"\(patientIdentifierSystem)\",\"value\":"
        JSONValue.writeString(patient.id, into: &out)
        out += "}"
        for identifier in patient.identifiers {
            out += ",{"
            if let type = identifier.type {
                out += "\"type\":{\"coding\":[{\"system\":\"http://terminology.hl7.org/CodeSystem/v2-0203\",\"code\":"
                JSONValue.writeString(type, into: &out)
                out += "}]},"
            }
            if let system = identifier.system {
                out += "\"system\":"
                JSONValue.writeString(system, into: &out)
                out += ","
            }
            out += "\"value\":"
            JSONValue.writeString(identifier.value, into: &out)
            out += "}"
        }
        out += "],\"name\":[{\"text\":"
        JSONValue.writeString(patient.name, into: &out)
        out += "}]"
        if let gender = patient.gender {
            out += ",\"gender\":"
            JSONValue.writeString(gender, into: &out)
        }
        if let birthDate = patient.birthDate {
            out += ",\"birthDate\":"
            JSONValue.writeString(birthDate, into: &out)
        }
        return out + "}"
    }

    /// Adds one record.
    /// - Throws: ``ExportError`` after `finish()`, or what the sink throws.
    public func write(_ record: ExportRecord) throws {
        guard !finished else { throw ExportError.finished("FHIR bundle writer") }
        summary.records += 1
        serial += 1
        let type = record.sample.type
        if !record.retracted, record.aggregate == nil,
            type == .bloodPressureSystolic || type == .bloodPressureDiastolic
        {
            let key = PairKey(record.sample)
            if let index = pending.firstIndex(where: { $0.key == key && $0.record.sample.type != type }) {
                let partner = pending.remove(at: index).record
                let (systolic, diastolic) = type == .bloodPressureSystolic ? (record, partner) : (partner, record)
                try writePanel(systolic: systolic, diastolic: diastolic)
            } else {
                pending.append((key, record, serial))
            }
        } else {
            try writeSingle(record)
        }
        while let first = pending.first, serial - first.serial >= options.pairingWindow {
            pending.removeFirst()
            try writeSingle(first.record)
        }
    }

    /// Identifier system of care-plan outcomes (value: `<task id>@<event start, UTC>`, plus `#<n>` per answer).
    public static let outcomeIdentifierSystem = "urn:carebridge:outcome"
    /// Code system of the care plan's task ids (the code of an answer Observation and of a Task).
    public static let taskCodeSystem = "urn:carebridge:task"

    /// Adds a care-plan outcome: an intervention as a `Task` (status `completed`, or `cancelled` with the
    /// reason when marked not done; `executionPeriod` the time it was done, `restriction.period` the event's
    /// window), an answered assessment as one survey `Observation` per answer (`valueInteger`, `valueQuantity`,
    /// `valueBoolean` or `valueString`; a not-done assessment as status `cancelled` with a `dataAbsentReason`).
    /// Both carry the subject, the note, and the task's key as a code in `urn:carebridge:task` (stable across
    /// patients: `medication@bed-2` for a second patient's `medication`) whose display is the task's name in the
    /// patient's plan (`medication`), with the title as the code's text.
    /// - Throws: ``ExportError`` after `finish()`, or what the sink throws.
    public func write(outcome: ExportOutcome) throws {
        guard !finished else { throw ExportError.finished("FHIR bundle writer") }
        let key = outcome.taskID + "@" + Timestamp.format(outcome.start, offsetSeconds: 0)
        var code = "{\"coding\":[{\"system\":\"\(Self.taskCodeSystem)\",\"code\":"
        JSONValue.writeString(outcome.taskID, into: &code)
        code += ",\"display\":"
        JSONValue.writeString(outcome.taskName, into: &code)
        code += "}],\"text\":"
        JSONValue.writeString(outcome.title, into: &code)
        code += "}"
        // The same subject as the vital signs: --subject, else the store's patient (its Patient entry first).
        try writePatientIfNeeded()
        var subject = ""
        if let reference = self.subject {
            subject += "{\"reference\":"
            JSONValue.writeString(reference, into: &subject)
            subject += "}"
        }
        func note(_ text: String?) -> String {
            guard let text else { return "" }
            var out = ",\"note\":[{\"text\":"
            JSONValue.writeString(text, into: &out)
            return out + "}]"
        }
        func identifier(_ value: String) -> String {
            var out = "[{\"system\":\"\(Self.outcomeIdentifierSystem)\",\"value\":"
            JSONValue.writeString(value, into: &out)
            return out + "}]"
        }
        switch outcome.kind {
        case .intervention:
            var resource = "{\"resourceType\":\"Task\",\"identifier\":" + identifier(key)
            if let reason = outcome.notDoneReason {
                resource += ",\"status\":\"cancelled\",\"statusReason\":{\"text\":"
                JSONValue.writeString(reason, into: &resource)
                resource += "}"
            } else {
                resource += ",\"status\":\"completed\""
            }
            resource += ",\"intent\":\"plan\",\"code\":" + code + ",\"description\":"
            JSONValue.writeString(outcome.title, into: &resource)
            if !subject.isEmpty { resource += ",\"for\":" + subject }
            if let doneAt = outcome.doneAt {
                resource += ",\"executionPeriod\":{\"start\":\"" + formatter.format(doneAt) + "\"}"
            }
            resource += ",\"restriction\":{\"period\":{\"start\":\"" + formatter.format(outcome.start)
            resource += "\",\"end\":\"" + formatter.format(max(outcome.start, outcome.end)) + "\"}}"
            resource += note(outcome.note) + "}"
            try writeEntry(
                type: "Task",
                fullUrl: "urn:uuid:" + UUIDText.lowercase(SHA256.uuid(for: "outcome|" + key)),
                resource: resource,
                identifierSystem: Self.outcomeIdentifierSystem,
                identifier: key
            )
        case .assessment:
            var answers = outcome.answers.map { Optional($0) }
            if answers.isEmpty, outcome.notDoneReason != nil { answers = [nil] }
            for (index, answer) in answers.enumerated() {
                let answerKey = key + "#\(index)"
                var resource = "{\"resourceType\":\"Observation\",\"identifier\":" + identifier(answerKey)
                resource += answer == nil ? ",\"status\":\"cancelled\"" : ",\"status\":\"final\""
                resource += ",\"category\":[{\"coding\":[{\"system\":\"\(VitalSignCoding.categorySystem)\","
                resource += "\"code\":\"survey\",\"display\":\"Survey\"}]}],\"code\":" + code
                if !subject.isEmpty { resource += ",\"subject\":" + subject }
                resource += ",\"effectiveDateTime\":\"" + formatter.format(answer?.at ?? outcome.start) + "\""
                switch answer?.answer {
                case .integer(let value): resource += ",\"valueInteger\":\(value)"
                case .quantity(let value, let unit):
                    resource += ",\"valueQuantity\":"
                    Self.appendQuantity(JSONText.number(value) ?? "0", unit, to: &resource)
                case .boolean(let value): resource += ",\"valueBoolean\":\(value)"
                case .text(let value):
                    resource += ",\"valueString\":"
                    JSONValue.writeString(value, into: &resource)
                case nil:
                    resource += ",\"dataAbsentReason\":{\"coding\":[{\"system\":\"\(Self.dataAbsentReasonSystem)\","
                    resource += "\"code\":\"asked-declined\",\"display\":\"Asked But Declined\"}]"
                    if let reason = outcome.notDoneReason {
                        resource += ",\"text\":"
                        JSONValue.writeString(reason, into: &resource)
                    }
                    resource += "}"
                }
                resource += note(outcome.note) + "}"
                try writeEntry(
                    type: "Observation",
                    fullUrl: "urn:uuid:" + UUIDText.lowercase(SHA256.uuid(for: "outcome|" + answerKey)),
                    resource: resource,
                    identifierSystem: Self.outcomeIdentifierSystem,
                    identifier: answerKey
                )
            }
        }
        summary.outcomes += 1
    }

    /// Writes what is still waiting for a partner and closes the bundle.
    /// - Returns: counts of records, exported records, resources and skipped types.
    public func finish() throws -> ExportSummary {
        guard !finished else { throw ExportError.finished("FHIR bundle writer") }
        for item in pending { try writeSingle(item.record) }
        pending.removeAll()
        try startIfNeeded()
        finished = true
        try sink(entries > 0 ? "\n]}\n" : "}\n")
        return summary
    }

    // MARK: - Structure

    private func startIfNeeded() throws {
        guard !started else { return }
        started = true
        var head = "{\"resourceType\":\"Bundle\",\"type\":\"\(options.bundleType.rawValue)\""
        if let timestamp = options.timestamp {
            head += ",\"timestamp\":"
            JSONValue.writeString(formatter.format(timestamp), into: &head)
        }
        try sink(head)
    }

    /// Writes one entry: `fullUrl`, `resource`, and in a transaction the conditional-create `request`.
    private func writeEntry(
        type: String,
        fullUrl: String,
        resource: String,
        identifierSystem: String,
        identifier: String,
        update: Bool = false
    ) throws {
        try startIfNeeded()
        var entry = entries == 0 ? ",\"entry\":[\n" : ",\n"
        entry.reserveCapacity(resource.utf8.count + 256)
        entry += "{\"fullUrl\":\"" + fullUrl + "\",\"resource\":"
        entry += resource
        let search = "identifier=" + Self.searchEscaped(identifierSystem + "|" + identifier)
        if options.bundleType == .transaction, update {
            // A retraction: conditional update of the Observation already posted with this identifier.
            entry += ",\"request\":{\"method\":\"PUT\",\"url\":"
            JSONText.appendString(type + "?" + search, to: &entry)
            entry += "}"
        } else if options.bundleType == .transaction {
            entry += ",\"request\":{\"method\":\"POST\",\"url\":\"\(type)\",\"ifNoneExist\":"
            JSONText.appendString(search, to: &entry)
            entry += "}"
        }
        entry += "}"
        entries += 1
        summary.resources += 1
        try sink(entry)
    }

    /// Percent-encodes what would break a search parameter value (`&`, `#`, `+`, `%`, spaces, non-ASCII).
    static func searchEscaped(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: ":"), UInt8(ascii: "|"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    // MARK: - Observations

    private func writeSingle(_ record: ExportRecord) throws {
        let sample = record.sample
        guard !sample.isQuarantined else {
            // Never exported as an observation: a quarantined value is not clinical data until released.
            summary.skipped[sample.type, default: 0] += 1
            return
        }
        guard let coding = VitalSignCoding.of(sample.type) else {
            summary.skipped[sample.type, default: 0] += 1
            return
        }
        let unbounded = sample.comparator != nil && !sample.value.isFinite
        guard let quantity = unbounded ? ("", coding.unit, coding.codings) : Self.quantity(of: sample, coding: coding)
        else {
            summary.skipped[sample.type, default: 0] += 1
            return
        }
        try writePatientIfNeeded()
        let device = try writeDeviceIfNeeded(sample.source, firstType: sample.type)
        let mdc = PHDCoding.code(of: sample)
        let phd = try phdContext(sample, device: device, mdc: mdc)
        let id = UUIDText.lowercase(sample.id)
        let flags = SampleScreening.flags(of: sample)
        let status = phd != nil ? PHDMeasurementStatus(flags: flags) : nil
        var resource = observationHead(
            profile: coding.profile,
            manual: sample.source.kind == .manual,
            retracted: record.retracted,
            identifier: id,
            codings: quantity.codings + (phd != nil ? mdc.map { [$0] } ?? [] : []),
            text: sample.type.title,
            start: sample.start,
            end: sample.end,
            phd: phd,
            phdProfile: PHDCoding.numericProfile,
            status: status
        )
        if let comparator = sample.comparator, unbounded {
            // Beyond a limit the device did not give: no number at all, the direction in the absent reason.
            resource += ",\"dataAbsentReason\":{\"coding\":[{\"system\":\"\(Self.dataAbsentReasonSystem)\","
            resource +=
                comparator == .lessThan
                ? "\"code\":\"negative-infinity\",\"display\":\"Negative Infinity (NINF)\"}]}"
                : "\"code\":\"positive-infinity\",\"display\":\"Positive Infinity (PINF)\"}]}"
        } else {
            resource += ",\"valueQuantity\":"
            Self.appendQuantity(quantity.value, quantity.unit, comparator: sample.comparator, to: &resource)
        }
        Self.appendInterpretation(
            sample.comparator,
            measurementStatus: status?.interpretationCodes ?? [],
            to: &resource
        )
        if let aggregate = record.aggregate {
            appendAggregate(aggregate, unit: sample.unit.rawValue, to: &resource)
        } else {
            Self.appendStatusNote(flags, to: &resource)
        }
        appendDevice(device, to: &resource)
        resource += "}"
        try writeEntry(
            type: "Observation",
            fullUrl: "urn:uuid:" + id,
            resource: resource,
            identifierSystem: phd?.identifier != nil ? PHDCoding.identifierSystem : Self.sampleIdentifierSystem,
            identifier: phd?.identifier ?? id,
            update: record.retracted
        )
        summary.exported += 1
    }

    /// An aggregate's `method` (mean of N samples) and `note` (what it summarises and why): the Observation's
    /// value is a mean over `effectivePeriod`, not one reading.
    private func appendAggregate(_ aggregate: ExportAggregate, unit: String, to out: inout String) {
        out += ",\"method\":{\"text\":\"mean of \(aggregate.count) samples (retention aggregate)\"}"
        var text = "Aggregate of \(aggregate.count) samples measured in [" + formatter.format(aggregate.bucketStart)
        text += ", " + formatter.format(aggregate.bucketEnd) + "): min " + (JSONText.number(aggregate.min) ?? "")
        text += " " + unit + ", max " + (JSONText.number(aggregate.max) ?? "") + " " + unit
        text += "; the individual samples were replaced by this aggregate under the store's retention policy"
        out += ",\"note\":[{\"text\":"
        JSONValue.writeString(text, into: &out)
        out += "}]"
    }

    private func writePanel(systolic: ExportRecord, diastolic: ExportRecord) throws {
        let high = systolic.sample
        let low = diastolic.sample
        // LO/HI halves and quarantined halves go through writeSingle, which qualifies or skips each.
        guard let highValue = high.valueAtResolution ?? JSONText.number(high.value),
            let lowValue = low.valueAtResolution ?? JSONText.number(low.value),
            high.unit == .millimetreOfMercury, low.unit == .millimetreOfMercury, high.comparator == nil,
            low.comparator == nil, !high.isQuarantined, !low.isQuarantined
        else {
            try writeSingle(systolic)
            try writeSingle(diastolic)
            return
        }
        try writePatientIfNeeded()
        let device = try writeDeviceIfNeeded(high.source, firstType: high.type)
        let phd = try phdContext(high, device: device, mdc: PHDCoding.bloodPressure)
        let id = UUIDText.lowercase(SHA256.uuid(for: "bp-panel|\(high.idempotencyKey)|\(low.idempotencyKey)"))
        var resource = observationHead(
            profile: VitalSignCoding.bloodPressureProfile,
            manual: high.source.kind == .manual || low.source.kind == .manual,
            retracted: false,
            identifier: id,
            codings: [VitalSignCoding.bloodPressurePanel] + (phd != nil ? [PHDCoding.bloodPressure] : []),
            text: "blood pressure",
            start: high.start,
            end: high.end,
            phd: phd,
            phdProfile: PHDCoding.compoundNumericProfile
        )
        resource += ",\"component\":["
        let parts = [
            (VitalSignCoding.systolic, PHDCoding.systolic, highValue),
            (VitalSignCoding.diastolic, PHDCoding.diastolic, lowValue),
        ]
        for (index, (coding, mdc, value)) in parts.enumerated() {
            if index > 0 { resource += "," }
            resource += "{\"code\":"
            Self.appendCodeableConcept(phd != nil ? [coding, mdc] : [coding], text: nil, to: &resource)
            resource += ",\"valueQuantity\":"
            Self.appendQuantity(value, .millimetreOfMercury, to: &resource)
            resource += "}"
        }
        resource += "]"
        Self.appendStatusNote(SampleScreening.flags(of: high), to: &resource)
        appendDevice(device, to: &resource)
        resource += "}"
        try writeEntry(
            type: "Observation",
            fullUrl: "urn:uuid:" + id,
            resource: resource,
            identifierSystem: phd?.identifier != nil ? PHDCoding.identifierSystem : Self.sampleIdentifierSystem,
            identifier: phd?.identifier ?? id
        )
        summary.exported += 2
    }

    /// Everything up to and including the effective time.
    private func observationHead(
        profile: String,
        manual: Bool,
        retracted: Bool,
        identifier: String,
        codings: [FHIRCoding],
        text: String,
        start: Date,
        end: Date,
        phd: PHDContext? = nil,
        phdProfile: String = PHDCoding.numericProfile,
        status: PHDMeasurementStatus? = nil
    ) -> String {
        var out = "{\"resourceType\":\"Observation\",\"meta\":{\"profile\":[\"\(profile)\""
        out.reserveCapacity(1400)
        if phd != nil { out += ",\"" + phdProfile + "\"" }
        out += "]"
        if manual {
            out += ",\"tag\":[{\"system\":\"\(Self.readingSourceSystem)\",\"code\":\"patient-reported\","
            out += "\"display\":\"Reported by the patient\"}]"
        }
        if status?.isTestData == true {
            out += ",\"security\":[{\"system\":\"\(PHDMeasurementStatus.testSecuritySystem)\",\"code\":\"HTEST\"}]"
        }
        out += "}"
        if let phd {
            out += ",\"extension\":[{\"url\":\"\(PHDCoding.gatewayExtension)\",\"valueReference\":{\"reference\":\""
            out += phd.gateway + "\"}}"
            if let coincident = phd.coincident {
                out += ",{\"url\":\"\(PHDCoding.coincidentTimeStampExtension)\",\"valueReference\":{\"reference\":\""
                out += coincident + "\"}}"
            }
            out += "]"
        }
        out += ",\"identifier\":[{\"system\":\"\(Self.sampleIdentifierSystem)\",\"value\":\""
        out += identifier + "\"}"
        if let value = phd?.identifier {
            out += ",{\"system\":\"\(PHDCoding.identifierSystem)\",\"value\":"
            JSONValue.writeString(value, into: &out)
            out += "}"
        }
        out +=
            retracted
            ? "],\"status\":\"entered-in-error\""
            : status?.isPreliminary == true ? "],\"status\":\"preliminary\"" : "],\"status\":\"final\""
        out += ",\"category\":[{\"coding\":[{\"system\":\"\(VitalSignCoding.categorySystem)\","
        out += "\"code\":\"vital-signs\",\"display\":\"Vital Signs\"}],\"text\":\"Vital Signs\"}"
        if phd != nil {
            out += ",{\"coding\":[{\"system\":\"\(PHDCoding.categorySystem)\",\"code\":\"phd\","
            out += "\"display\":\"PHD generated Observation\"}]}"
        }
        out += "],\"code\":"
        let conceptKey = codings.map(\.code).joined(separator: ",") + "|" + text
        if let concept = concepts[conceptKey] {
            out += concept
        } else {
            var concept = ""
            Self.appendCodeableConcept(codings, text: text, to: &concept)
            concepts[conceptKey] = concept
            out += concept
        }
        if let subject {
            out += ",\"subject\":{\"reference\":"
            JSONValue.writeString(subject, into: &out)
            out += "}"
        }
        if start == end {
            out += ",\"effectiveDateTime\":\"" + formatter.format(start) + "\""
        } else {
            out += ",\"effectivePeriod\":{\"start\":\"" + formatter.format(min(start, end)) + "\",\"end\":\""
            out += formatter.format(max(start, end)) + "\"}"
        }
        if manual, let subject {
            out += ",\"performer\":[{\"reference\":"
            JSONValue.writeString(subject, into: &out)
            out += "}]"
        }
        return out
    }

    private func appendDevice(_ device: DeviceReference?, to out: inout String) {
        guard let device else { return }
        out += ",\"device\":{\"reference\":\"" + device.reference + "\""
        if let display = device.display {
            out += ",\"display\":"
            JSONValue.writeString(display, into: &out)
        }
        out += "}"
    }

    static func appendCodeableConcept(_ codings: [FHIRCoding], text: String?, to out: inout String) {
        out += "{\"coding\":["
        for (index, coding) in codings.enumerated() {
            if index > 0 { out += "," }
            out += "{\"system\":\"\(coding.system)\",\"code\":\"\(coding.code)\",\"display\":"
            JSONValue.writeString(coding.display, into: &out)
            out += "}"
        }
        out += "]"
        if let text {
            out += ",\"text\":"
            JSONValue.writeString(text, into: &out)
        }
        out += "}"
    }

    /// `Observation.dataAbsentReason` code system.
    static let dataAbsentReasonSystem = "http://terminology.hl7.org/CodeSystem/data-absent-reason"
    /// `Observation.interpretation` code system (`<` off scale low, `>` off scale high).
    static let interpretationSystem = "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation"

    /// `interpretation` `<` / `>` for a LO/HI sample; nothing otherwise.
    static func appendInterpretation(
        _ comparator: ValueComparator?,
        measurementStatus: [String] = [],
        to out: inout String
    ) {
        guard comparator != nil || !measurementStatus.isEmpty else { return }
        out += ",\"interpretation\":["
        if let comparator {
            out += "{\"coding\":[{\"system\":\"\(interpretationSystem)\",\"code\":"
            JSONText.appendString(comparator.rawValue, to: &out)
            out += ",\"display\":"
            JSONText.appendString(comparator.interpretationDisplay, to: &out)
            out += "}],\"text\":"
            JSONText.appendString(comparator.label, to: &out)
            out += "}"
        }
        // PhdBaseObservation interpretation.coding[MsmtStatusInterpretation]: one measurement-status coding each.
        for (index, code) in measurementStatus.enumerated() {
            if index > 0 || comparator != nil { out += "," }
            out += "{\"coding\":[{\"system\":\"\(PHDMeasurementStatus.system)\",\"code\":"
            JSONText.appendString(code, to: &out)
            out += "}]}"
        }
        out += "]"
    }

    /// The device's status flags as a note (`device status: irregular pulse, body movement`).
    static func appendStatusNote(_ flags: [String], to out: inout String) {
        guard !flags.isEmpty else { return }
        out += ",\"note\":[{\"text\":"
        JSONText.appendString("device status: " + flags.joined(separator: ", "), to: &out)
        out += "}]"
    }

    static func appendQuantity(
        _ value: String,
        _ unit: HealthUnit,
        comparator: ValueComparator? = nil,
        to out: inout String
    ) {
        out += "{\"value\":" + value
        if let comparator { out += ",\"comparator\":\"" + comparator.rawValue + "\"" }
        out += ",\"unit\":"
        JSONText.appendString(unit.rawValue, to: &out)
        out += ",\"system\":\"\(VitalSignCoding.ucumSystem)\",\"code\":"
        JSONValue.writeString(unit.rawValue, into: &out)
        out += "}"
    }

    /// The value text, unit and codings for `sample`, or nil when it cannot be expressed in the coding's unit.
    static func quantity(
        of sample: QuantitySample,
        coding: VitalSignCoding
    ) -> (value: String, unit: HealthUnit, codings: [FHIRCoding])? {
        if sample.type == .bloodGlucose {
            // Molar concentration in, molar out (15074-8); mass concentration otherwise (2339-0).
            switch sample.transmittedUnit {
            case .millimolePerLitre:
                return JSONText.number(sample.transmittedValue).map {
                    ($0, .millimolePerLitre, [VitalSignCoding.glucoseMoles])
                }
            case .molePerLitre:
                return DecimalText.scaled(sample.transmittedValue, byPowerOfTen: 3)
                    .map { ($0, .millimolePerLitre, [VitalSignCoding.glucoseMoles]) }
            default: break
            }
        }
        // At the transmitted precision when the decoder recorded it (SampleResolution; FHIR decimals keep their
        // trailing zeros as precision): 120.0 mm[Hg] from 16.0 kPa, not 120.009852128.
        if sample.unit == coding.unit {
            return (sample.valueAtResolution ?? JSONText.number(sample.value)).map { ($0, coding.unit, coding.codings) }
        }
        if sample.transmittedUnit == coding.unit {
            return (sample.transmittedValueAtResolution ?? JSONText.number(sample.transmittedValue)).map {
                ($0, coding.unit, coding.codings)
            }
        }
        if sample.unit == .metre, coding.unit == .centimetre {
            return DecimalText.scaled(sample.value, byPowerOfTen: 2).map { ($0, coding.unit, coding.codings) }
        }
        guard let converted = sample.unit.convert(sample.value, to: coding.unit), let text = JSONText.number(converted)
        else {
            return nil
        }
        return (text, coding.unit, coding.codings)
    }

    // MARK: - Devices

    /// Writes the Device for `source` the first time it appears (after the gateway, the first time a device
    /// appears). Returns its fullUrl UUID and a display name.
    private func writeDeviceIfNeeded(_ source: SampleSource, firstType: QuantityType) throws -> DeviceReference? {
        guard source.kind == .device, let identity = source.device else { return nil }
        let key = identity.key
        if let known = writtenDevices[key] { return known }
        try writeGatewayIfNeeded()
        let device = DeviceReference(
            reference: "urn:uuid:" + UUIDText.lowercase(SHA256.uuid(for: "device|\(key)")),
            display: identity.name ?? identity.model,
            identity: identity
        )
        writtenDevices[key] = device
        try writeEntry(
            type: "Device",
            fullUrl: device.reference,
            resource: Self.deviceResource(identity, firstType: firstType),
            identifierSystem: Self.deviceIdentifierSystem,
            identifier: key
        )
        return device
    }

    /// The gateway's `fullUrl`.
    var gatewayReference: String {
        "urn:uuid:" + UUIDText.lowercase(SHA256.uuid(for: "gateway|" + options.gateway.systemID))
    }

    private func writeGatewayIfNeeded() throws {
        guard !gatewayWritten else { return }
        gatewayWritten = true
        try writeEntry(
            type: "Device",
            fullUrl: gatewayReference,
            resource: Self.gatewayResource(options.gateway),
            identifierSystem: PHDCoding.systemIDSystem,
            identifier: options.gateway.systemID
        )
    }

    /// Writes the coincident time stamp of `sample`'s session the first time it is needed; returns its fullUrl.
    private func writeCoincidentTimeStampIfNeeded(_ sample: QuantitySample, device: DeviceReference) throws -> String? {
        guard let (key, gateway, deviceClock) = Self.coincidentKey(sample, deviceKey: device.identity.key) else {
            return nil
        }
        let reference = "urn:uuid:" + UUIDText.lowercase(SHA256.uuid(for: "coincident|" + key))
        guard writtenCoincident.insert(key).inserted else { return reference }
        try writeEntry(
            type: "Observation",
            fullUrl: reference,
            resource: coincidentResource(
                key: key,
                gateway: gateway,
                device: deviceClock,
                phd: device.reference,
                phg: gatewayReference
            ),
            identifierSystem: Self.coincidentTimeStampIdentifierSystem,
            identifier: key
        )
        return reference
    }

    /// What makes an Observation of `sample` a PHD Observation (nil for a manual reading): the MDC code, the
    /// guide's identifier, the coincident time stamp.
    private func phdContext(_ sample: QuantitySample, device: DeviceReference?, mdc: FHIRCoding?) throws -> PHDContext?
    {
        guard let device else { return nil }
        let coincident = try writeCoincidentTimeStampIfNeeded(sample, device: device)
        return PHDContext(
            device: device,
            gateway: gatewayReference,
            coincident: coincident,
            identifier: mdc.flatMap { phdIdentifier(sample, identity: device.identity, mdcCode: $0.code) }
        )
    }
}

/// How Observations point at a Device entry.
struct DeviceReference {
    var reference: String
    var display: String?
    var identity: DeviceIdentity
}

/// The PHD IG parts of a device reading's Observation: its device and gateway, its coincident time stamp, and the
/// guide's conditional-create identifier (nil when the device gave no time stamp).
struct PHDContext {
    var device: DeviceReference
    var gateway: String
    var coincident: String?
    var identifier: String?
}
