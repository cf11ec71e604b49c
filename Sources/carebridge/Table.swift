/// An aligned plain-text table: columns padded to their widest cell, two spaces apart.
struct Table {
    var headers: [String]
    var rows: [[String]] = []

    init(_ headers: [String]) {
        self.headers = headers
    }

    /// Adds a row; cells are sanitised for the terminal (they carry device names and Device Information strings).
    mutating func append(_ row: [String]) { rows.append(row.map(TerminalText.sanitize)) }

    func render() -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (index, cell) in cells.enumerated() {
                let last = index == cells.count - 1
                text += last ? cell : cell + String(repeating: " ", count: widths[index] - cell.count + 2)
            }
            return text
        }
        return ([line(headers)] + rows.map(line)).joined(separator: "\n")
    }
}
