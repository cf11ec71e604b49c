import Foundation

/// The report as one self-contained HTML file: inline CSS, inline SVG charts, no scripts, no external resources;
/// readable on a phone (fluid width, tables scroll sideways) and printable (A4, tables not split mid-row).
public enum HTMLReport {
    public static func render(_ report: ReportData) -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(report.title)) — \(escape(report.patient)), \(escape(report.period))</title>
            <style>
            body { font-family: Helvetica, Arial, sans-serif; color: #21262e; margin: 0 auto; max-width: 56rem; padding: 1rem; line-height: 1.4; }
            header.page { border-bottom: 2px solid #2a6bbf; margin-bottom: 1rem; padding-bottom: .5rem; }
            header.page h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
            header.page p { margin: 0; color: #4a525e; }
            h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; border-bottom: 1px solid #d9dde3; }
            figure { margin: 0 0 1rem; }
            figure svg { width: 100%; height: auto; max-width: 40rem; display: block; }
            figcaption { font-size: .95rem; font-weight: bold; margin: 0 0 .25rem; }
            .scroll { overflow-x: auto; }
            table { border-collapse: collapse; width: 100%; font-size: .85rem; }
            th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #e3e6ea; vertical-align: top; }
            th { background: #f0f3f7; }
            td.mark { background: #fbe1dc; color: #8a1c12; font-weight: bold; }
            p.note { font-size: .85rem; color: #4a525e; margin: .25rem 0; }
            ul.summary, ul.changes { padding-left: 1.2rem; }
            ul.changes { font-weight: bold; }
            h3 { font-size: 1rem; margin: .75rem 0 .25rem; }
            @media print {
              body { max-width: none; padding: 0; }
              @page { size: A4; margin: 15mm; }
              tr, figure { break-inside: avoid; }
              thead { display: table-header-group; }
              h2 { break-after: avoid; }
            }
            </style>
            </head>
            <body>
            <header class="page">
            <h1>\(escape(report.title))</h1>
            <p>\(([report.patient] + report.patientDetails + [report.period]).map(escape).joined(separator: " · "))</p>
            <p>\(escape(report.generated))</p>
            </header>

            """
        if !report.changes.isEmpty || !report.summary.isEmpty {
            html += "<h2>Summary</h2>\n"
        }
        if !report.changes.isEmpty {
            html += "<h3>What changed</h3>\n<ul class=\"changes\">\n"
            for line in report.changes { html += "<li>\(escape(line))</li>\n" }
            html += "</ul>\n"
        }
        if !report.summary.isEmpty {
            if !report.changes.isEmpty { html += "<h3>Per task</h3>\n" }
            html += "<ul class=\"summary\">\n"
            for line in report.summary { html += "<li>\(escape(line))</li>\n" }
            html += "</ul>\n"
        }
        if !report.charts.isEmpty { html += "<h2>Charts</h2>\n" }
        for chart in report.charts {
            // The title above its chart, as in the PDF.
            html += "<figure>\n<figcaption>\(escape(chart.title))</figcaption>\n\(svg(chart))\n</figure>\n"
        }
        for table in report.tables {
            html += "<section>\n<h2>\(escape(table.title))</h2>\n"
            if let note = table.note { html += "<p class=\"note\">\(escape(note))</p>\n" }
            if table.rows.isEmpty {
                html += "<p class=\"note\">None in this period.</p>\n</section>\n"
                continue
            }
            html += "<div class=\"scroll\"><table>\n<thead><tr>"
            for header in table.headers { html += "<th>\(escape(header))</th>" }
            html += "</tr></thead>\n<tbody>\n"
            for (rowIndex, row) in table.rows.enumerated() {
                html += "<tr>"
                for (column, cell) in row.enumerated() {
                    let marked = table.marked.contains([rowIndex, column])
                    html += marked ? "<td class=\"mark\">\(escape(cell))</td>" : "<td>\(escape(cell))</td>"
                }
                html += "</tr>\n"
            }
            html += "</tbody>\n</table></div>\n</section>\n"
        }
        html += "</body>\n</html>\n"
        return html
    }

    /// The chart as an inline SVG element.
    public static func svg(_ chart: Chart) -> String {
        var svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(n(chart.width)) \(n(chart.height))\" "
            + "role=\"img\" aria-label=\"\(escape(chart.description))\" class=\"chart\">"
            + "<title>\(escape(chart.title))</title><desc>\(escape(chart.description))</desc>"
        for shape in chart.shapes {
            switch shape {
            case .rect(let x, let y, let width, let height, let fill):
                svg +=
                    "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(width))\" height=\"\(n(height))\" fill=\"\(fill.hex)\"/>"
            case .line(let x1, let y1, let x2, let y2, let stroke, let width):
                svg +=
                    "<line x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" stroke=\"\(stroke.hex)\" "
                    + "stroke-width=\"\(n(width))\"/>"
            case .polyline(let points, let stroke, let width):
                let list = points.map { "\(n($0[0])),\(n($0[1]))" }.joined(separator: " ")
                svg +=
                    "<polyline points=\"\(list)\" fill=\"none\" stroke=\"\(stroke.hex)\" stroke-width=\"\(n(width))\"/>"
            case .circle(let x, let y, let radius, let fill):
                svg += "<circle cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"\(n(radius))\" fill=\"\(fill.hex)\"/>"
            case .text(let x, let y, let text, let size, let anchor, let color, let bold):
                svg +=
                    "<text x=\"\(n(x))\" y=\"\(n(y))\" font-size=\"\(n(size))\" text-anchor=\"\(anchor.rawValue)\" "
                    + "fill=\"\(color.hex)\" font-family=\"Helvetica, Arial, sans-serif\""
                    + (bold ? " font-weight=\"bold\"" : "") + ">\(escape(text))</text>"
            }
        }
        return svg + "</svg>"
    }

    static func n(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
