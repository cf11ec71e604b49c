import ArgumentParser
import BridgeCore
import CarePlan
import CareStore
import Foundation
import SampleExport

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export stored samples as a FHIR R4 bundle, CSV or JSON Lines.",
        discussion: """
            Samples are read from the store oldest first, in pages, and written as they are read, so an export \
            of millions of samples needs little memory.

            fhir: a Bundle of vital-signs Observations (LOINC codes, UCUM units, one Device per source device, \
            systolic and diastolic as one blood-pressure panel) in the shape of HL7's Personal Health Device IG \
            2.0: device readings also carry their MDC code, the gateway (this machine as a PhgDevice), the \
            guide's identifier and a coincident time stamp (docs/fhir.md). --bundle transaction makes every entry a \
            conditional create (POST with ifNoneExist on its identifier), so posting the same export to a FHIR \
            server twice creates nothing new. Types without a LOINC code (RR intervals, impedance, …) are left \
            out and counted in the summary. A LO/HI reading has valueQuantity.comparator and interpretation \
            < or > (dataAbsentReason negative-/positive-infinity when the device limit is unknown); a deleted \
            sample (a correction) is an Observation with status entered-in-error (in a transaction: a \
            conditional update, PUT Observation?identifier=…). Care-plan outcomes in the range (all of them \
            when no --type is given; without --from from the first task on, deleted tasks' outcomes included) follow: an intervention done or marked not done is a Task (completed, or \
            cancelled with the reason), an answered assessment one survey Observation per answer; see the README.
            csv: one row per sample (RFC 4180): id, type, value, unit, start, end, source, device, transmitted \
            value and unit, matched task and occurrence (';'-joined when several), comparator (< or >), \
            interpretation (LO or HI), device status flags, patient.
            jsonl: one sample object per line, with its matched events and its patient.
            Quarantined samples (`carebridge samples --quarantined`) are never exported; deleted ones only as \
            FHIR retractions.

            An export is one patient's (--patient, or the store's only patient): FHIR bundles then start with a \
            Patient resource (name, birth date, gender, the identifiers such as the medical record number) that \
            every Observation's subject references, unless --subject gives another reference. Readings in the \
            unassigned inbox belong to no patient and are not exported.

            The export goes to standard output unless --out is given; a one-line summary goes to standard error. \
            --out writes a new file with mode 0600 (--mode to change) and replaces an existing one only when the \
            export succeeded; it may not be the store itself.

            Exit status: 0 done; 64 bad arguments (unknown type, format or time); 73 the output file cannot be \
            created or written; 74 the store cannot be opened or read.

            Examples:
              carebridge export --format fhir --out bundle.json
              carebridge export --format csv --from 2026-11-01 --type bodyMass
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case fhir, csv, jsonl
    }

    enum BundleKind: String, ExpressibleByArgument, CaseIterable {
        case collection, transaction
    }

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "fhir, csv or jsonl.")
    var format: Format

    @Option(name: .long, help: "Measured at or after (ISO-8601; a bare date is its midnight).")
    var from: String?

    @Option(name: .long, help: "Measured before (a bare date includes that day).")
    var to: String?

    @Option(name: .long, help: "Only this quantity type (repeatable), e.g. bodyMass.")
    var type: [String] = []

    @Option(name: .long, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var out: String?

    @Option(name: .long, help: FileMode.help)
    var mode: FileMode = .private

    @Option(name: .long, help: "FHIR Bundle type: collection (to read) or transaction (to POST to a server).")
    var bundle: BundleKind = .collection

    @Option(
        name: .long,
        help: ArgumentHelp(
            "FHIR subject of every Observation: Patient/[id], a URL ending in it, or urn:uuid:…",
            valueName: "reference"
        )
    )
    var subject: String?

    /// Samples read from the store per query (hidden: for tests of the paging).
    @Option(name: .long, help: .hidden)
    var pageSize = 5_000

    func validate() throws {
        try NumericOption.check(pageSize, "--page-size", in: 1...1_000_000)
        if format != .fhir, bundle != .collection || subject != nil {
            throw ValidationError("--bundle and --subject apply to --format fhir only")
        }
        if let subject, let problem = FHIRReference.problem(withSubject: subject) {
            throw ValidationError("--subject: \(problem)")
        }
    }

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let selection = try SampleSelection(types: type, from: from, to: to, zone: zone)
        let query = SampleQuery(
            types: selection.types,
            from: selection.start,
            to: selection.end,
            // FHIR carries corrections: a deleted sample is written as entered-in-error.
            includesDeleted: format == .fhir
        )
        let store = try await storeOptions.open(zone: zone, mode: .existing)
        let patient = await format == .fhir ? try Self.fhirPatient(store) : nil
        if format == .fhir, subject == nil, patient == nil {
            Output.error(
                "warning: no --subject and no patient in the store: the Observations and Tasks name no patient, "
                    + "which the FHIR vital-signs profile requires; give one, e.g. --subject Patient/123, or add "
                    + "the patient (carebridge patients add)"
            )
        }

        let sink: FileSink
        if let out {
            do {
                let store = storeOptions.path
                sink = try FileSink(path: out, mode: mode.bits, inputs: [store, store + "-wal", store + "-shm"])
            } catch {
                Output.error(error.message)
                throw ExitCode(Self.cannotCreate)
            }
            Output.noteRemovedPartials(sink.removedStale, of: out)
        } else {
            sink = FileSink(handle: .standardOutput, name: "standard output")
        }
        let writer = ExportFormat(rawValue: format.rawValue)!.makeWriter(
            fhir: FHIRBundleWriter.Options(
                bundleType: bundle == .transaction ? .transaction : .collection,
                subject: subject,
                timestamp: Date(),
                patient: patient,
                gateway: GatewayIdentity.current()
            ),
            timeZone: zone,
            // Device names and notes are the devices' text: on a terminal, escape sequences in them are shown,
            // not run.
            sink: { [onTerminal = out == nil && Output.isTerminal] in
                try sink.append(onTerminal ? TerminalText.sanitizeKeepingLineBreaks($0) : $0)
            }
        )
        let summary: ExportSummary
        do {
            try await StoredSampleCursor(store: store, query: query, pageSize: pageSize).read { record in
                try writer.write(record)
            }
            if let fhir = writer as? FHIRBundleWriter, type.isEmpty {
                for outcome in try await Self.outcomes(store, from: selection.start, to: selection.end) {
                    try fhir.write(outcome: outcome)
                }
            }
            summary = try writer.finish()
            try sink.close()
        } catch let error as CareStoreError {
            throw StoreExit.fail(error)
        } catch let error as ExportError {
            Output.error(error.message)
            throw ExitCode(Self.cannotCreate)
        }
        var line = "exported \(summary.exported) sample\(summary.exported == 1 ? "" : "s")"
        if format == .fhir { line += " as \(summary.resources) resource\(summary.resources == 1 ? "" : "s")" }
        line += " to \(sink.name)"
        if summary.outcomes > 0 {
            line += "; with \(summary.outcomes) care-plan outcome\(summary.outcomes == 1 ? "" : "s") (Tasks, answers)"
        }
        if !summary.skipped.isEmpty {
            let skipped = summary.skipped.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key) \($0.value)" }
            line += "; skipped (no FHIR code): " + skipped.joined(separator: ", ")
        }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// The outcomes of events in [from, to) that no sample gave: interventions done or not done, answers typed
    /// in. Without --from, from the earliest effective date of any task, deleted ones included (their outcomes
    /// before the deletion are history too); without --to, up to now.
    static func outcomes(_ store: CareStore, from: Date?, to: Date?) async throws(CareStoreError) -> [ExportOutcome] {
        var start = from
        if start == nil { start = try await store.earliestTaskEffectiveDate() }
        let end = to ?? Date()
        guard let start, start < end else { return [] }
        return try await store.events(matching: EventQuery(from: start, to: end)).compactMap { event in
            guard let outcome = event.outcome else { return nil }
            let typed = outcome.values.filter { $0.sampleID == nil }
            if event.kind == .intervention {
                return ExportOutcome(
                    taskID: event.taskID,
                    taskName: event.taskName,
                    title: event.title,
                    kind: .intervention,
                    occurrence: event.occurrence,
                    start: event.start,
                    end: event.end,
                    doneAt: typed.first?.measuredAt,
                    notDoneReason: outcome.notDoneReason,
                    note: outcome.note
                )
            }
            guard !typed.isEmpty || outcome.notDoneReason != nil else { return nil }  // exported as samples
            let answers = typed.map { value -> ExportOutcome.Given in
                let answer: ExportOutcome.Answer
                switch event.answer {
                case .yesNo?: answer = .boolean(value.value != 0)
                case .choice(_)?, .text?: answer = .text(value.text ?? Events.number(value.value))
                case .duration?: answer = .quantity(value.value, value.unit)
                default:
                    answer =
                        value.value == value.value.rounded() && abs(value.value) < 1e9
                        ? .integer(Int(value.value)) : .quantity(value.value, value.unit)
                }
                return ExportOutcome.Given(answer, at: value.measuredAt)
            }
            return ExportOutcome(
                taskID: event.taskID,
                taskName: event.taskName,
                title: event.title,
                kind: .assessment,
                occurrence: event.occurrence,
                start: event.start,
                end: event.end,
                answers: answers,
                notDoneReason: outcome.notDoneReason,
                note: outcome.note
            )
        }
    }

    /// EX_CANTCREAT.
    static let cannotCreate: Int32 = 73

    /// The Patient resource of the patient the export is for (--patient, or the only one), with its identifiers.
    static func fhirPatient(_ store: CareStore) async throws -> FHIRPatient? {
        guard let id = store.patientScope else { return nil }
        let patient: Patient? = try await StoreExit.attempt { try await store.patient(id: id) }
        guard let patient else { return nil }
        return FHIRPatient(
            id: patient.id,
            name: patient.name,
            birthDate: patient.birthday,
            gender: patient.sex?.rawValue,
            identifiers: patient.identifiers.map { .init(system: $0.system, value: $0.value, type: $0.type) }
        )
    }
}

/// Reads samples page by page through the store's cursor, oldest first, with the care-plan events each one
/// completed.
struct StoredSampleCursor {
    var store: CareStore
    var query: SampleQuery
    var pageSize: Int

    /// Calls `body` once per sample, in (start, id) order, holding one page at a time (the store's
    /// ``SampleCursor``).
    func read(_ body: (ExportRecord) throws -> Void) async throws {
        // Aggregates of vacuumed samples, in time order with the raw samples (all of the range at once: one per
        // bucket, far fewer than the samples they replaced).
        var aggregates = try await store.sampleAggregates(matching: query)[...]
        var cursor = store.sampleCursor(matching: query, pageSize: pageSize)
        while let page = try await cursor.next() {
            let matches = try await self.matches(for: page)
            for stored in page {
                while let next = aggregates.first, next.firstAt <= stored.sample.start {
                    try body(Self.record(next))
                    aggregates = aggregates.dropFirst()
                }
                try body(
                    ExportRecord(
                        sample: stored.sample,
                        matches: stored.deletedDate == nil ? matches[stored.id] ?? [] : [],
                        retracted: stored.deletedDate != nil,
                        patient: stored.patientID
                    )
                )
            }
        }
        for aggregate in aggregates { try body(Self.record(aggregate)) }
    }

    /// An aggregate as an export record: its mean measured from its first to its last sample, with what it
    /// summarises; the id is derived from the bucket, so exporting it again gives the same resource.
    static func record(_ aggregate: SampleAggregate) -> ExportRecord {
        let key =
            "aggregate|\(aggregate.type.rawValue)|\(aggregate.unit.rawValue)|\(aggregate.sourceKind.rawValue)|"
            + "\(aggregate.device?.key ?? "")|\(aggregate.patientID ?? "")|\(aggregate.bucketStart.timeIntervalSince1970)"
        let sample = QuantitySample(
            type: aggregate.type,
            value: aggregate.mean,
            unit: aggregate.unit,
            start: aggregate.firstAt,
            end: aggregate.lastAt,
            source: SampleSource(kind: aggregate.sourceKind, device: aggregate.device),
            id: SHA256.uuid(for: key)
        )
        return ExportRecord(
            sample: sample,
            patient: aggregate.patientID,
            aggregate: ExportAggregate(
                count: aggregate.count,
                min: aggregate.min,
                max: aggregate.max,
                sum: aggregate.sum,
                bucketStart: aggregate.bucketStart,
                bucketEnd: aggregate.bucketEnd
            )
        )
    }

    /// Which events each sample fed: outcome values carry the id of the sample they came from.
    private func matches(for samples: [StoredSample]) async throws -> [UUID: [EventMatch]] {
        guard let first = samples.first?.sample.start, let last = samples.last?.sample.end else { return [:] }
        let day: TimeInterval = 86_400
        let events = try await store.events(matching: EventQuery(from: first - day, to: max(last, first) + day))
        var matches: [UUID: [EventMatch]] = [:]
        for event in events {
            for value in event.outcome?.values ?? [] {
                guard let id = value.sampleID else { continue }
                let match = EventMatch(task: event.taskID, occurrence: event.occurrence)
                if matches[id]?.contains(match) != true { matches[id, default: []].append(match) }
            }
        }
        return matches
    }
}
