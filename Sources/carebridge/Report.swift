import ArgumentParser
import BridgeFoundation
import CarePlan
import CareReport
import CareStore
import Foundation
import Insights

struct Report: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the care report for the care team: HTML or PDF.",
        discussion: """
            The report covers --from/--to (default: the last 7 days, today included): the patient and the period \
            in the page header; a summary that opens with what changed (a weight gain, a low blood sugar, a \
            high blood pressure, critical alerts, adherence that dropped, each with its numbers); the grouped \
            bar chart of an intervention's daily completion beside an assessment's daily value; line charts of \
            the linked measurements with the rules' thresholds as bands, blood pressure as systolic and \
            diastolic in one chart; tables of adherence per intervention, the readings per day (blood pressure \
            as pairs, 164/98), the flagged readings one by one (quarantined and out-of-range readings marked), \
            answers and notes, the period's alerts, and the devices. --readings lists every reading instead of \
            the per-day table.

            --format html: one self-contained file (inline CSS and SVG, no scripts, nothing fetched), readable \
            on a phone and printable. --format pdf: written by CareBridge itself (standard fonts, vector charts, \
            A4 or --page letter), tables break only between rows with their header repeated. The file is \
            written to a temporary file next to --out with mode 0600 and renamed when complete, so a failed run \
            leaves no half report (a killed one leaves a .partial file, removed by the next report to --out). \
            The rules are re-evaluated for the period first.

            --patient ID reports on one patient of the store (default: the only one) and puts their name in the \
            header. In a store without patients, --patient is just the name shown in the header, as before.

            --share-with CONTACT (repeatable; a contact of the patient's plans, see `carebridge contacts`) says \
            whom the report is for: once the file is written, each gets an entry in the sharing audit list \
            (`carebridge shared`: what report, channel file, the period and the file).

            Examples:
              carebridge report --format html --out week.html
              carebridge report --format pdf --readings --out week-readings.pdf
              carebridge report --from 2026-11-01 --to 2026-11-30 --format pdf --page \\
                  letter --out november.pdf

            Exit status: 0 done; 64 bad arguments; 73 the output file cannot be written; 74 the store cannot be \
            opened or read.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case html, pdf
    }

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions
    @OptionGroup var period: ReportPeriod

    @Option(name: .long, help: "html or pdf.")
    var format: Format

    @Option(name: .long, help: "The file to write.")
    var out: String

    @Option(name: .long, help: "PDF page size: a4 or letter.")
    var page: String = "a4"

    @Option(
        name: .long,
        help: ArgumentHelp("Record in the sharing audit list that the report goes to this contact.", valueName: "id")
    )
    var shareWith: [String] = []

    @Flag(name: .long, help: "List every reading one by one instead of the table of readings per day.")
    var readings = false

    func validate() throws {
        guard PDFReport.PageSize(rawValue: page.lowercased()) != nil else {
            throw ValidationError("--page must be a4 or letter")
        }
    }

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let (from, to) = try period.resolve(zone: zone)
        // A store without patients: --patient is only the header's name (what it was before patients existed).
        var header = storeOptions.patient
        var options = storeOptions
        options.patient = nil
        // Read-only for a user who may only read the store, unless the report is to be recorded as shared.
        let mode: CareStore.OpenMode = shareWith.isEmpty ? .existing : .create
        let unscoped = try await options.open(zone: zone, mode: mode, patients: .any)
        if (try? await unscoped.patients().isEmpty) != true { options.patient = storeOptions.patient }
        let store = try await options.open(zone: zone, mode: mode)
        let data: ReportData
        do throws(CareStoreError) {
            // Checked before anything is written: a mistyped contact is not found after the report exists.
            let contacts = try await store.contacts(patientID: store.patientScope).map(\.id)
            for contact in shareWith where !contacts.contains(contact) {
                throw CareStoreError(
                    .patientNotFound,
                    "--share-with: no contact '\(contact)'"
                        + (contacts.isEmpty ? " (there are none)" : "; contacts: \(contacts.joined(separator: ", "))")
                )
            }
            if let id = store.patientScope { header = try await store.patient(id: id)?.name ?? header }
            try await AlertRefresh.evaluate(store: store, path: storeOptions.path, from: from, to: min(to, Date()))
            data = try await ReportBuilder.build(
                store: store,
                from: from,
                to: to,
                patient: header,
                individualReadings: readings
            )
        } catch {
            throw StoreExit.fail(error)
        }
        let bytes: [UInt8] =
            switch format {
            case .html: Array(HTMLReport.render(data).utf8)
            case .pdf: PDFReport.render(data, pageSize: PDFReport.PageSize(rawValue: page.lowercased()) ?? .a4)
            }
        do {
            let file = try SafeOutputFile(path: out, inputs: [storeOptions.path], removingStale: true)
            Output.noteRemovedPartials(file.removedStale, of: out)
            do {
                try file.write(bytes)
                try file.commit()
            } catch {
                file.discard()
                throw error
            }
        } catch {
            Output.error("\(error)")
            throw ExitCode(73)
        }
        FileHandle.standardError.write(Data("wrote \(format.rawValue) report of \(data.period) to \(out)\n".utf8))
        do {
            for contact in shareWith {
                let entry = try await store.recordShare(
                    contactID: contact,
                    what: "report",
                    channel: "file",
                    detail: "\(format.rawValue) report of \(data.period): \(out)"
                )
                FileHandle.standardError.write(Data("recorded: report shared with \(entry.contactID)\n".utf8))
            }
        } catch {
            throw StoreExit.fail(error)
        }
    }
}
