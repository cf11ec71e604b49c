import Foundation

/// A small PDF 1.4 writer: pages of vector drawing and text in the standard fonts, a cross-reference table and
/// document information. No compression, no embedded fonts: the file is plain and any reader shows it.
struct PDFWriter {
    /// Page contents: PDF content-stream operators.
    var pages: [String] = []
    var width: Double
    var height: Double
    var title: String

    /// The finished file.
    func data() -> [UInt8] {
        // A binary comment line marks the file as binary for transfer tools.
        var out: [UInt8] = Array("%PDF-1.4\n".utf8) + [0x25, 0xE2, 0xE3, 0xCF, 0xD3, 0x0A]
        var offsets: [Int] = []
        func object(_ number: Int, _ body: [UInt8]) {
            offsets.append(out.count)
            out += Array("\(number) 0 obj\n".utf8) + body + Array("\nendobj\n".utf8)
        }
        let pageCount = pages.count
        let firstPage = 6
        let kids = (0..<pageCount).map { "\(firstPage + 2 * $0) 0 R" }.joined(separator: " ")
        object(1, Array("<< /Type /Catalog /Pages 2 0 R >>".utf8))
        object(2, Array("<< /Type /Pages /Kids [\(kids)] /Count \(pageCount) >>".utf8))
        object(3, Array("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".utf8))
        object(4, Array("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>".utf8))
        object(5, Array("<< /Title ".utf8) + Self.hexString(title) + Array(" /Producer (CareBridge) >>".utf8))
        for (index, content) in pages.enumerated() {
            let page = firstPage + 2 * index
            object(
                page,
                Array(
                    ("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(Self.number(width)) \(Self.number(height))] "
                        + "/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents \(page + 1) 0 R >>").utf8
                )
            )
            let stream = Array(content.utf8)
            object(
                page + 1,
                Array("<< /Length \(stream.count) >>\nstream\n".utf8) + stream + Array("\nendstream".utf8)
            )
        }
        let xref = out.count
        var table = "xref\n0 \(offsets.count + 1)\n0000000000 65535 f \n"
        for offset in offsets {
            table += String(repeating: "0", count: 10 - String(offset).count) + "\(offset) 00000 n \n"
        }
        table += "trailer\n<< /Size \(offsets.count + 1) /Root 1 0 R /Info 5 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        out += Array(table.utf8)
        return out
    }

    /// `<FEFF…>`: a text string in UTF-16BE, for document information.
    static func hexString(_ text: String) -> [UInt8] {
        var hex = "<FEFF"
        for unit in text.utf16 { hex += String(format: "%04X", unit) }
        return Array((hex + ">").utf8)
    }

    /// Shortest decimal with at most 2 places (PDF numbers).
    static func number(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int64(rounded)) : String(format: "%.2f", rounded)
    }
}
