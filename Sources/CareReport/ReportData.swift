/// Everything the care report shows, already formatted as text and numbers: the same data for HTML and PDF.
public struct ReportData: Sendable, Hashable {
    /// A table: a title, column headers and rows of cells; `marks` flag cells to highlight (row, column).
    public struct Table: Sendable, Hashable {
        public var title: String
        public var note: String?
        public var headers: [String]
        public var rows: [[String]]
        /// Cells shown as warnings (quarantined, out-of-range, alerts), by row then column.
        public var marked: Set<[Int]>

        public init(title: String, note: String? = nil, headers: [String], rows: [[String]], marked: Set<[Int]> = []) {
            self.title = title
            self.note = note
            self.headers = headers
            self.rows = rows
            self.marked = marked
        }
    }

    public var title: String
    /// The patient line of the page header (`Patient: …`); the single implicit patient until patients exist.
    public var patient: String
    /// Birth date, record number, allergies and the responsible clinician, shown after the name on every page.
    public var patientDetails: [String]
    /// `2026-11-16 – 2026-11-22`.
    public var period: String
    public var generated: String
    /// What changed over the period, each with its numbers (a weight gain, a low sugar, critical alerts): the
    /// summary opens with it.
    public var changes: [String]
    public var summary: [String]
    public var charts: [Chart]
    public var tables: [Table]

    public init(
        title: String,
        patient: String,
        patientDetails: [String] = [],
        period: String,
        generated: String,
        changes: [String] = [],
        summary: [String],
        charts: [Chart],
        tables: [Table]
    ) {
        self.title = title
        self.patient = patient
        self.patientDetails = patientDetails
        self.period = period
        self.generated = generated
        self.changes = changes
        self.summary = summary
        self.charts = charts
        self.tables = tables
    }
}
