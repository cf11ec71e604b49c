import Foundation

/// Lays the report out on A4 or Letter pages and writes it as PDF: a page header with the title, patient and
/// period on every page, page numbers, charts drawn as vectors, and tables that break between rows (the header
/// row is repeated, a title is never left alone at the bottom of a page, and at least two rows go with it); a row
/// taller than a page is split between its lines and continues on the next page. Text in any script an installed
/// TrueType font covers is embedded (`PDFFontSet`).
public enum PDFReport {
    public enum PageSize: String, Sendable, CaseIterable {
        case a4, letter

        var size: (width: Double, height: Double) { self == .a4 ? (595.28, 841.89) : (612, 792) }
    }

    public static func render(_ report: ReportData, pageSize: PageSize = .a4) -> [UInt8] {
        var layout = Layout(report: report, size: pageSize.size)
        layout.run()
        let pages = layout.pages.enumerated().map { index, page in
            layout.header(page: index + 1, of: layout.pages.count) + page
        }
        let writer = PDFWriter(
            pages: pages,
            width: pageSize.size.width,
            height: pageSize.size.height,
            title: report.title,
            fonts: layout.fonts
        )
        return writer.data()
    }

    struct Layout {
        let report: ReportData
        let width: Double
        let height: Double
        let margin = 42.0
        let headerHeight = 46.0
        /// Helvetica, and the embedded fonts for what it lacks; collects the glyphs used.
        let fonts = PDFFontSet()
        var pages: [String] = []
        var current = ""
        /// Distance from the top of the page to the next free line.
        var cursor = 0.0

        init(report: ReportData, size: (width: Double, height: Double)) {
            self.report = report
            width = size.width
            height = size.height
        }

        var contentWidth: Double { width - 2 * margin }
        var bottomLimit: Double { height - margin - 18 }
        var remaining: Double { bottomLimit - cursor }

        mutating func run() {
            newPage()
            if !report.changes.isEmpty || !report.summary.isEmpty { heading("Summary") }
            if !report.changes.isEmpty {
                subheading("What changed")
                bullets(report.changes, font: .bold)
            }
            if !report.summary.isEmpty {
                if !report.changes.isEmpty { subheading("Per task") }
                bullets(report.summary, font: .regular)
            }
            for (index, chart) in report.charts.enumerated() {
                let scale = min(contentWidth / chart.width, 1.0)
                let chartHeight = chart.height * scale
                if index == 0 {
                    ensure(chartHeight + 40)
                    heading("Charts")
                }
                ensure(chartHeight + 22)
                self.text(chart.title, x: margin, y: cursor + 10, size: 10, font: .bold)
                cursor += 16
                draw(chart, x: margin, y: cursor, scale: scale)
                cursor += chartHeight + 10
            }
            for table in report.tables { self.table(table) }
            finishPage()
        }

        // MARK: Pages

        mutating func newPage() {
            if !current.isEmpty || !pages.isEmpty || cursor > 0 { finishPage() }
            cursor = margin + headerHeight
        }

        mutating func finishPage() {
            if cursor > 0 { pages.append(current) }
            current = ""
            cursor = 0
        }

        /// Starts a new page unless `height` points still fit.
        mutating func ensure(_ needed: Double) {
            if needed > remaining { newPage() }
        }

        /// The header and footer of page `number`.
        func header(page number: Int, of count: Int) -> String {
            var out = ""
            let top = height - margin
            out += textOperator(report.title, x: margin, y: top - 12, size: 13, font: .bold)
            // The patient line: one line at 9 pt as long as it fits, else two at 7.5 pt or three at 6 pt.
            let patientLine = ([report.patient] + report.patientDetails + [report.period]).joined(separator: "  ·  ")
            if fonts.width(patientLine, font: .regular, size: 9) <= contentWidth {
                out += textOperator(patientLine, x: margin, y: top - 27, size: 9, font: .regular)
            } else {
                var size = 7.5
                var lines = wrap(patientLine, font: .regular, size: size, width: contentWidth)
                if lines.count > 2 {
                    size = 6
                    lines = wrap(patientLine, font: .regular, size: size, width: contentWidth)
                }
                for (index, line) in lines.prefix(3).enumerated() {
                    let first = lines.count > 2 ? top - 20 : top - 23
                    out += textOperator(
                        line,
                        x: margin,
                        y: first - Double(index) * (size + 0.5),
                        size: size,
                        font: .regular
                    )
                }
            }
            let generated = report.generated
            out += textOperator(
                generated,
                x: width - margin - fonts.width(generated, font: .regular, size: 7.5),
                y: top - 12,
                size: 7.5,
                font: .regular
            )
            out += "0.16 0.42 0.75 RG 1.2 w \(n(margin)) \(n(top - 34)) m \(n(width - margin)) \(n(top - 34)) l S\n"
            let footer = "Page \(number) of \(count)"
            out += textOperator(
                footer,
                x: width - margin - fonts.width(footer, font: .regular, size: 8),
                y: margin - 14,
                size: 8,
                font: .regular
            )
            return out
        }

        // MARK: Blocks

        mutating func heading(_ title: String) {
            ensure(40)
            cursor += 8
            text(title, x: margin, y: cursor + 12, size: 12, font: .bold)
            cursor += 17
            current +=
                "0.85 0.87 0.9 RG 0.6 w \(n(margin)) \(n(y(cursor))) m \(n(width - margin)) \(n(y(cursor))) l S\n"
            cursor += 6
        }

        mutating func subheading(_ title: String) {
            ensure(30)
            cursor += 2
            text(title, x: margin, y: cursor + 10, size: 10, font: .bold)
            cursor += 15
        }

        mutating func bullets(_ items: [String], font: StandardFont) {
            for item in items {
                let lines = wrap("• " + item, font: font, size: 9.5, width: contentWidth)
                ensure(Double(lines.count) * 13)
                for line in lines {
                    text(line, x: margin, y: cursor + 10, size: 9.5, font: font)
                    cursor += 13
                }
            }
        }

        mutating func table(_ table: ReportData.Table) {
            let size = 8.0
            let columns = table.headers.count
            let widths = columnWidths(table, size: size)
            func rowLines(_ cells: [String], font: StandardFont) -> [[String]] {
                (0..<columns).map { column in
                    wrap(column < cells.count ? cells[column] : "", font: font, size: size, width: widths[column] - 6)
                }
            }
            let headerLines = rowLines(table.headers, font: .bold)
            let headerHeight = Double(headerLines.map(\.count).max() ?? 1) * 10 + 4
            let rows = table.rows.map { rowLines($0, font: .regular) }
            let rowHeights = rows.map { Double($0.map(\.count).max() ?? 1) * 10 + 4 }
            let noteHeight = table.note == nil ? 0.0 : 13.0
            // The title, its note, the header and the first two rows stay together.
            ensure(40 + noteHeight + headerHeight + rowHeights.prefix(2).reduce(0, +))
            heading(table.title)
            if let note = table.note {
                for line in wrap(note, font: .regular, size: 8, width: contentWidth) {
                    text(line, x: margin, y: cursor + 8, size: 8, font: .regular, gray: 0.35)
                    cursor += 11
                }
                cursor += 2
            }
            if table.rows.isEmpty {
                text("None in this period.", x: margin, y: cursor + 9, size: 8.5, font: .regular, gray: 0.35)
                cursor += 14
                return
            }
            drawRow(headerLines, widths: widths, height: headerHeight, font: .bold, fill: "0.94 0.95 0.97", marks: [])
            func continuation() {
                newPage()
                text("\(table.title) (continued)", x: margin, y: cursor + 10, size: 10, font: .bold)
                cursor += 16
                drawRow(
                    headerLines,
                    widths: widths,
                    height: headerHeight,
                    font: .bold,
                    fill: "0.94 0.95 0.97",
                    marks: []
                )
            }
            // What a fresh page holds below the continued title and the header row.
            let pageRoom = bottomLimit - (margin + self.headerHeight) - 16 - headerHeight
            for (index, lines) in rows.enumerated() {
                let marks = Set((0..<columns).filter { table.marked.contains([index, $0]) })
                var pending = lines
                while true {
                    let needed = Double(pending.map(\.count).max() ?? 1) * 10 + 4
                    if needed <= remaining {
                        drawRow(pending, widths: widths, height: needed, font: .regular, fill: nil, marks: marks)
                        break
                    }
                    // A row that fits on a page moves there whole; a taller one fills this page (if at least two
                    // lines fit) and continues on the next, never past the bottom margin.
                    let fitting = Int((remaining - 4) / 10)
                    if needed <= pageRoom || fitting < 2 {
                        continuation()
                        continue
                    }
                    let part = pending.map { Array($0.prefix(fitting)) }
                    drawRow(
                        part,
                        widths: widths,
                        height: Double(fitting) * 10 + 4,
                        font: .regular,
                        fill: nil,
                        marks: marks
                    )
                    pending = pending.map { Array($0.dropFirst(fitting)) }
                    continuation()
                }
            }
            cursor += 4
        }

        mutating func drawRow(
            _ cells: [[String]],
            widths: [Double],
            height rowHeight: Double,
            font: StandardFont,
            fill: String?,
            marks: Set<Int>
        ) {
            let top = cursor
            if let fill {
                current += "\(fill) rg \(n(margin)) \(n(y(top + rowHeight))) \(n(contentWidth)) \(n(rowHeight)) re f\n"
            }
            var x = margin
            for (column, lines) in cells.enumerated() {
                let marked = marks.contains(column)
                if marked {
                    current +=
                        "0.98 0.88 0.86 rg \(n(x)) \(n(y(top + rowHeight))) \(n(widths[column])) \(n(rowHeight)) re f\n"
                }
                for (index, line) in lines.enumerated() {
                    text(
                        line,
                        x: x + 3,
                        y: top + 10 + Double(index) * 10,
                        size: 8,
                        font: marked ? .bold : font,
                        red: marked
                    )
                }
                x += widths[column]
            }
            cursor += rowHeight
            current +=
                "0.89 0.9 0.92 RG 0.5 w \(n(margin)) \(n(y(cursor))) m \(n(width - margin)) \(n(y(cursor))) l S\n"
        }

        /// Column widths proportional to their widest cell (capped), filling the content width.
        func columnWidths(_ table: ReportData.Table, size: Double) -> [Double] {
            let columns = table.headers.count
            var wanted = [Double](repeating: 30, count: columns)
            for (column, header) in table.headers.enumerated() {
                wanted[column] = max(wanted[column], fonts.width(header, font: .bold, size: size) + 8)
            }
            for row in table.rows {
                for (column, cell) in row.enumerated() where column < columns {
                    wanted[column] = max(wanted[column], min(fonts.width(cell, font: .regular, size: size) + 8, 220))
                }
            }
            let total = wanted.reduce(0, +)
            return wanted.map { $0 * contentWidth / total }
        }

        // MARK: Drawing

        /// Page y (PDF space, up) of a distance from the top.
        func y(_ fromTop: Double) -> Double { height - fromTop }

        mutating func text(
            _ string: String,
            x: Double,
            y fromTop: Double,
            size: Double,
            font: StandardFont,
            gray: Double = 0.13,
            red: Bool = false
        ) {
            let color = red ? "0.55 0.11 0.07" : "\(n(gray)) \(n(gray)) \(n(gray))"
            current += "\(color) rg " + textOperator(string, x: x, y: y(fromTop), size: size, font: font)
        }

        func textOperator(_ string: String, x: Double, y: Double, size: Double, font: StandardFont) -> String {
            "BT \(n(x)) \(n(y)) Td " + fonts.show(string, font: font, size: size) + "ET\n"
        }

        mutating func draw(_ chart: Chart, x originX: Double, y originTop: Double, scale: Double) {
            let pageHeight = height
            let px = { (value: Double) in originX + value * scale }
            let py = { (value: Double) in pageHeight - (originTop + value * scale) }
            for shape in chart.shapes {
                switch shape {
                case .rect(let x, let y, let width, let height, let fill):
                    current +=
                        "\(rgb(fill)) rg \(n(px(x))) \(n(py(y + height))) \(n(width * scale)) \(n(height * scale)) re f\n"
                case .line(let x1, let y1, let x2, let y2, let stroke, let width):
                    current +=
                        "\(rgb(stroke)) RG \(n(width * scale)) w \(n(px(x1))) \(n(py(y1))) m "
                        + "\(n(px(x2))) \(n(py(y2))) l S\n"
                case .polyline(let points, let stroke, let width):
                    guard let first = points.first else { continue }
                    var path = "\(rgb(stroke)) RG \(n(width * scale)) w 1 j \(n(px(first[0]))) \(n(py(first[1]))) m "
                    for point in points.dropFirst() { path += "\(n(px(point[0]))) \(n(py(point[1]))) l " }
                    current += path + "S\n"
                case .circle(let x, let y, let radius, let fill):
                    // Four Bézier arcs.
                    let r = radius * scale
                    let k = r * 0.5523
                    let cx = px(x)
                    let cy = py(y)
                    current +=
                        "\(rgb(fill)) rg \(n(cx + r)) \(n(cy)) m "
                        + "\(n(cx + r)) \(n(cy + k)) \(n(cx + k)) \(n(cy + r)) \(n(cx)) \(n(cy + r)) c "
                        + "\(n(cx - k)) \(n(cy + r)) \(n(cx - r)) \(n(cy + k)) \(n(cx - r)) \(n(cy)) c "
                        + "\(n(cx - r)) \(n(cy - k)) \(n(cx - k)) \(n(cy - r)) \(n(cx)) \(n(cy - r)) c "
                        + "\(n(cx + k)) \(n(cy - r)) \(n(cx + r)) \(n(cy - k)) \(n(cx + r)) \(n(cy)) c f\n"
                case .text(let x, let y, let string, let size, let anchor, let color, let bold):
                    let font: StandardFont = bold ? .bold : .regular
                    let textWidth = fonts.width(string, font: font, size: size * scale)
                    let shift = anchor == .start ? 0 : (anchor == .middle ? textWidth / 2 : textWidth)
                    current +=
                        "\(rgb(color)) rg "
                        + textOperator(string, x: px(x) - shift, y: py(y), size: size * scale, font: font)
                }
            }
        }

        func rgb(_ color: Chart.Color) -> String { "\(n(color.red)) \(n(color.green)) \(n(color.blue))" }

        func n(_ value: Double) -> String { PDFWriter.number(value) }

        /// Breaks text into lines no wider than `width` (long words are cut between characters). Linear in the
        /// text's length: each word and, in a word too long for a line, each character is measured once.
        func wrap(_ text: String, font: StandardFont, size: Double, width: Double) -> [String] {
            var lines: [String] = []
            var line = ""
            var lineWidth = 0.0
            let space = fonts.width(" ", font: font, size: size)
            for word in text.split(separator: " ", omittingEmptySubsequences: false) {
                let wordWidth = fonts.width(String(word), font: font, size: size)
                let candidate = line.isEmpty ? wordWidth : lineWidth + space + wordWidth
                if candidate <= width {
                    if !line.isEmpty { line += " " }
                    line += word
                    lineWidth = candidate
                    continue
                }
                if !line.isEmpty { lines.append(line) }
                line = ""
                lineWidth = 0
                for character in word {
                    let characterWidth = fonts.width(String(character), font: font, size: size)
                    if lineWidth + characterWidth > width, !line.isEmpty {
                        lines.append(line)
                        line = ""
                        lineWidth = 0
                    }
                    line.append(character)
                    lineWidth += characterWidth
                }
            }
            if !line.isEmpty || lines.isEmpty { lines.append(line) }
            return lines
        }
    }
}
