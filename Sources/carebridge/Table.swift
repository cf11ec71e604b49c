import Foundation

/// An aligned plain-text table: columns padded to their widest cell, two spaces apart.
///
/// On a terminal (or with `COLUMNS` set) a table wider than the screen wraps deliberately: the leading columns
/// that fit stay on the row's line and the rest follow on an indented line as `HEADER value`, so nothing is
/// cut and no line is broken by the terminal in the middle of a cell. Piped output keeps one line per row.
struct Table {
    var headers: [String]
    var rows: [[String]] = []
    /// Per row, the colour of each cell (none, or fewer than the cells: the rest plain).
    var colors: [[TerminalColor?]] = []

    init(_ headers: [String]) {
        self.headers = headers
    }

    /// Adds a row; cells are sanitised for the terminal (they carry device names and Device Information strings).
    mutating func append(_ row: [String]) { append(row, colors: []) }

    /// Adds a row whose cells are shown in `colors` (``ColorOption`` decides whether to pass any); widths are
    /// measured without the colour sequences.
    mutating func append(_ row: [String], colors: [TerminalColor?]) {
        rows.append(row.map(TerminalText.sanitize))
        self.colors.append(colors)
    }

    /// The width to fit: `COLUMNS` when set, 80 on a terminal, unlimited when piped.
    static var screenWidth: Int? {
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns >= 20 {
            return columns
        }
        return Output.isTerminal ? 80 : nil
    }

    /// The width of each column: its widest cell or header, and at least `minimum` (the widths of the pages
    /// printed before, for a table printed page by page).
    func columnWidths(atLeast minimum: [Int] = []) -> [Int] {
        var widths = headers.map(\.count)
        for (index, width) in minimum.enumerated() where index < widths.count {
            widths[index] = max(widths[index], width)
        }
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        return widths
    }

    /// The table as text, the header line first unless `header` is false (a later page of a table printed page
    /// by page, whose columns are `widths`).
    func render(width: Int? = Table.screenWidth, widths: [Int]? = nil, header: Bool = true) -> String {
        let widths = widths ?? columnWidths()
        // The leading columns that fit the width (at least one).
        var kept = widths.count
        if let width {
            var used = 0
            for (index, columnWidth) in widths.enumerated() {
                let needed = used + (index > 0 ? 2 : 0) + columnWidth
                if needed > width, index > 0 {
                    kept = index
                    break
                }
                used = needed
            }
        }
        func line(_ cells: [String], colors: [TerminalColor?] = []) -> String {
            var text = ""
            let shown = Array(cells.prefix(kept))
            for (index, cell) in shown.enumerated() {
                let last = index == shown.count - 1
                let painted = (index < colors.count ? colors[index] : nil)?.paint(cell) ?? cell
                text += last ? painted : painted + String(repeating: " ", count: widths[index] - cell.count + 2)
            }
            return text
        }
        func overflow(_ cells: [String]) -> [String] {
            guard kept < cells.count else { return [] }
            let parts = cells.indices.dropFirst(kept).compactMap { index -> String? in
                cells[index].isEmpty ? nil : "\(headers[index]) \(cells[index])"
            }
            return parts.isEmpty ? [] : ["    " + parts.joined(separator: "  ")]
        }
        var lines = header ? [line(headers)] : []
        for (index, row) in rows.enumerated() {
            lines += [line(row, colors: index < colors.count ? colors[index] : [])] + overflow(row)
        }
        return lines.joined(separator: "\n")
    }
}
