import Foundation

/// A small PDF 1.4 writer: pages of vector drawing and text, a cross-reference table and document information.
/// Text is in the standard fonts plus, for characters they lack, subsets of TrueType fonts (`PDFFontSet`). No
/// compression: the file is plain and any reader shows it.
struct PDFWriter {
    /// Page contents: PDF content-stream operators.
    var pages: [String] = []
    var width: Double
    var height: Double
    var title: String
    var fonts: PDFFontSet

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
        let firstFont = firstPage + 2 * pageCount
        let fontResources = fonts.embedded.enumerated().map { " /\($1.resourceName) \(firstFont + 5 * $0) 0 R" }
            .joined()
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
                        + "/Resources << /Font << /F1 3 0 R /F2 4 0 R\(fontResources) >> >> /Contents \(page + 1) 0 R >>")
                        .utf8
                )
            )
            let stream = Array(content.utf8)
            object(
                page + 1,
                Array("<< /Length \(stream.count) >>\nstream\n".utf8) + stream + Array("\nendstream".utf8)
            )
        }
        for (index, font) in fonts.embedded.enumerated() {
            let base = firstFont + 5 * index
            for (offset, body) in Self.fontObjects(font, first: base).enumerated() { object(base + offset, body) }
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

    /// The five objects of an embedded font, numbered from `first`: the Type0 font, its CIDFontType2, the font
    /// descriptor, the subset font file and the ToUnicode map.
    static func fontObjects(_ embedded: PDFFontSet.Embedded, first: Int) -> [[UInt8]] {
        let font = embedded.font
        let scale = { (value: Int) in String(value * 1000 / font.unitsPerEm) }
        // A subset's name starts with six capital letters that differ between subsets.
        var hash: UInt32 = 2_166_136_261
        for glyph in embedded.glyphs { hash = (hash ^ UInt32(glyph)) &* 16_777_619 }
        let tag = String((0..<6).map { Character(Unicode.Scalar(UInt8(65 + (hash >> (5 * UInt32($0))) % 26))) })
        let name = "\(tag)+\(font.postScriptName)"
        let widths = embedded.glyphs.map { String(font.width(of: $0)) }.joined(separator: " ")
        let type0 =
            "<< /Type /Font /Subtype /Type0 /BaseFont /\(name) /Encoding /Identity-H "
            + "/DescendantFonts [\(first + 1) 0 R] /ToUnicode \(first + 4) 0 R >>"
        let cidFont =
            "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /\(name) "
            + "/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> "
            + "/FontDescriptor \(first + 2) 0 R /CIDToGIDMap /Identity /DW \(font.width(of: 0)) /W [1 [\(widths)]] >>"
        let descriptor =
            "<< /Type /FontDescriptor /FontName /\(name) /Flags 32 "
            + "/FontBBox [\(font.boundingBox.map(scale).joined(separator: " "))] /ItalicAngle 0 "
            + "/Ascent \(scale(font.ascent)) /Descent \(scale(font.descent)) /CapHeight \(scale(font.capHeight)) "
            + "/StemV 80 /FontFile2 \(first + 3) 0 R >>"
        let program = font.subset(embedded.glyphs)
        var cmap =
            "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
            + "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
            + "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
            + "1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n"
        let ids = (1...max(embedded.glyphs.count, 1)).filter { embedded.texts[UInt16($0)] != nil }
        for start in stride(from: 0, to: ids.count, by: 100) {
            let chunk = ids[start..<min(start + 100, ids.count)]
            cmap += "\(chunk.count) beginbfchar\n"
            for id in chunk {
                let text = embedded.texts[UInt16(id)] ?? ""
                cmap += String(format: "<%04X> <", id) + text.utf16.map { String(format: "%04X", $0) }.joined() + ">\n"
            }
            cmap += "endbfchar\n"
        }
        cmap += "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend"
        return [
            Array(type0.utf8),
            Array(cidFont.utf8),
            Array(descriptor.utf8),
            Array("<< /Length \(program.count) /Length1 \(program.count) >>\nstream\n".utf8) + program
                + Array("\nendstream".utf8),
            stream(Array(cmap.utf8)),
        ]
    }

    static func stream(_ bytes: [UInt8]) -> [UInt8] {
        Array("<< /Length \(bytes.count) >>\nstream\n".utf8) + bytes + Array("\nendstream".utf8)
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
