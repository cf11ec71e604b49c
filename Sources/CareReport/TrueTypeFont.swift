import Foundation

/// A TrueType font (glyf outlines, from a `.ttf` or one face of a `.ttc`) read far enough to lay text out with it
/// and embed a subset in a PDF: the character map, glyph advance widths, the outlines and the few metrics a PDF
/// font descriptor needs.
struct TrueTypeFont: Sendable {
    /// Why a file cannot be used as an embeddable TrueType font.
    struct LoadError: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "font \(path): \(reason)" }
    }

    let path: String
    /// The PostScript name (`DejaVuSans`), letters and digits only.
    let postScriptName: String
    let unitsPerEm: Int
    let ascent: Int
    let descent: Int
    let capHeight: Int
    let boundingBox: [Int]
    let glyphCount: Int
    /// Unicode scalar → glyph.
    let characterMap: [UInt32: UInt16]
    /// Advance width of each glyph in font units.
    let advances: [UInt16]
    /// Each glyph's outline bytes (empty for blank glyphs).
    let outlines: [ArraySlice<UInt8>]
    /// Tables copied into every subset unchanged (hinting: `cvt `, `fpgm`, `prep`).
    let hinting: [(tag: String, data: [UInt8])]
    let head: [UInt8]
    let hhea: [UInt8]
    let maxp: [UInt8]

    init(path: String) throws(LoadError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LoadError(path: path, reason: "cannot be read")
        }
        try self.init(bytes: [UInt8](data), path: path)
    }

    init(bytes: [UInt8], path: String) throws(LoadError) {
        let reader = FontReader(bytes: bytes)
        func fail(_ reason: String) -> LoadError { LoadError(path: path, reason: reason) }
        // A collection starts with `ttcf`; its first face is used.
        var start = 0
        if bytes.count >= 16, reader.tag(0) == "ttcf" { start = reader.u32(12) }
        guard start + 12 <= bytes.count, reader.u32(start) == 0x0001_0000 || reader.tag(start) == "true" else {
            throw fail("not a TrueType font with glyf outlines")
        }
        var tables: [String: Range<Int>] = [:]
        for index in 0..<reader.u16(start + 4) {
            let record = start + 12 + 16 * index
            guard record + 16 <= bytes.count else { throw fail("truncated table directory") }
            let offset = reader.u32(record + 8)
            let length = reader.u32(record + 12)
            guard offset + length <= bytes.count else { throw fail("table \(reader.tag(record)) outside the file") }
            tables[reader.tag(record)] = offset..<offset + length
        }
        func table(_ tag: String) throws(LoadError) -> Range<Int> {
            guard let range = tables[tag] else { throw fail("no \(tag) table") }
            return range
        }
        let headRange = try table("head")
        let hheaRange = try table("hhea")
        let maxpRange = try table("maxp")
        let hmtxRange = try table("hmtx")
        let locaRange = try table("loca")
        let glyfRange = try table("glyf")
        let cmapRange = try table("cmap")
        guard headRange.count >= 54, hheaRange.count >= 36, maxpRange.count >= 6 else { throw fail("short header") }
        self.path = path
        head = Array(bytes[headRange])
        hhea = Array(bytes[hheaRange])
        maxp = Array(bytes[maxpRange])
        unitsPerEm = max(reader.u16(headRange.lowerBound + 18), 16)
        boundingBox = (0..<4).map { reader.s16(headRange.lowerBound + 36 + 2 * $0) }
        let longOffsets = reader.u16(headRange.lowerBound + 50) == 1
        ascent = reader.s16(hheaRange.lowerBound + 4)
        descent = reader.s16(hheaRange.lowerBound + 6)
        let metricCount = reader.u16(hheaRange.lowerBound + 34)
        glyphCount = reader.u16(maxpRange.lowerBound + 4)
        guard metricCount >= 1, metricCount <= glyphCount, hmtxRange.count >= 4 * metricCount else {
            throw fail("hmtx shorter than hhea says")
        }
        var advances: [UInt16] = []
        advances.reserveCapacity(glyphCount)
        for glyph in 0..<glyphCount {
            advances.append(UInt16(reader.u16(hmtxRange.lowerBound + 4 * min(glyph, metricCount - 1))))
        }
        self.advances = advances
        guard locaRange.count >= (glyphCount + 1) * (longOffsets ? 4 : 2) else { throw fail("loca too short") }
        var outlines: [ArraySlice<UInt8>] = []
        outlines.reserveCapacity(glyphCount)
        for glyph in 0..<glyphCount {
            let from: Int
            let to: Int
            if longOffsets {
                from = reader.u32(locaRange.lowerBound + 4 * glyph)
                to = reader.u32(locaRange.lowerBound + 4 * glyph + 4)
            } else {
                from = 2 * reader.u16(locaRange.lowerBound + 2 * glyph)
                to = 2 * reader.u16(locaRange.lowerBound + 2 * glyph + 2)
            }
            guard from <= to, glyfRange.lowerBound + to <= glyfRange.upperBound else {
                throw fail("glyph \(glyph) outside glyf")
            }
            outlines.append(bytes[glyfRange.lowerBound + from..<glyfRange.lowerBound + to])
        }
        self.outlines = outlines
        characterMap = try Self.characterMap(reader, cmap: cmapRange, glyphCount: glyphCount, fail: fail)
        hinting = ["cvt ", "fpgm", "prep"].compactMap { tag in tables[tag].map { (tag, Array(bytes[$0])) } }
        if let os2 = tables["OS/2"], os2.count >= 90 {
            capHeight = reader.s16(os2.lowerBound + 88)
        } else {
            capHeight = ascent
        }
        postScriptName = Self.postScriptName(reader, name: tables["name"]) ?? "Embedded"
    }

    /// The Unicode subtable (format 12 preferred, else format 4) as scalar → glyph.
    static func characterMap(
        _ reader: FontReader,
        cmap: Range<Int>,
        glyphCount: Int,
        fail: (String) -> LoadError
    ) throws(LoadError) -> [UInt32: UInt16] {
        let base = cmap.lowerBound
        var best: (format: Int, offset: Int)?
        for index in 0..<reader.u16(base + 2) {
            let record = base + 4 + 8 * index
            let platform = reader.u16(record)
            let encoding = reader.u16(record + 2)
            let offset = base + reader.u32(record + 4)
            guard offset + 4 <= cmap.upperBound, platform == 0 || (platform == 3 && (encoding == 1 || encoding == 10))
            else { continue }
            let format = reader.u16(offset)
            if format == 12, best?.format != 12 { best = (12, offset) }
            if format == 4, best == nil { best = (4, offset) }
        }
        guard let best else { throw fail("no Unicode character map") }
        var map: [UInt32: UInt16] = [:]
        if best.format == 12 {
            let groups = reader.u32(best.offset + 12)
            guard best.offset + 16 + 12 * groups <= cmap.upperBound else { throw fail("cmap groups truncated") }
            for group in 0..<groups {
                let at = best.offset + 16 + 12 * group
                let first = reader.u32(at)
                let last = reader.u32(at + 4)
                let glyph = reader.u32(at + 8)
                guard first <= last, last <= 0x10FFFF else { continue }
                for scalar in first...last where glyph + scalar - first < glyphCount {
                    map[UInt32(scalar)] = UInt16(glyph + scalar - first)
                }
            }
            return map
        }
        let segments = reader.u16(best.offset + 6) / 2
        let ends = best.offset + 14
        let starts = ends + 2 * segments + 2
        let deltas = starts + 2 * segments
        let rangeOffsets = deltas + 2 * segments
        guard rangeOffsets + 2 * segments <= cmap.upperBound else { throw fail("cmap segments truncated") }
        for segment in 0..<segments {
            let end = reader.u16(ends + 2 * segment)
            let start = reader.u16(starts + 2 * segment)
            let delta = reader.u16(deltas + 2 * segment)
            let rangeOffset = reader.u16(rangeOffsets + 2 * segment)
            guard start <= end, end != 0xFFFF else { continue }
            for code in start...end {
                var glyph: Int
                if rangeOffset == 0 {
                    glyph = (code + delta) & 0xFFFF
                } else {
                    let at = rangeOffsets + 2 * segment + rangeOffset + 2 * (code - start)
                    guard at + 2 <= cmap.upperBound else { continue }
                    glyph = reader.u16(at)
                    if glyph != 0 { glyph = (glyph + delta) & 0xFFFF }
                }
                if glyph != 0, glyph < glyphCount { map[UInt32(code)] = UInt16(glyph) }
            }
        }
        return map
    }

    /// Name ID 6 from a Macintosh (1-byte) or Windows (UTF-16BE) record, reduced to letters, digits and `-`.
    static func postScriptName(_ reader: FontReader, name: Range<Int>?) -> String? {
        guard let name, name.count >= 6 else { return nil }
        let count = reader.u16(name.lowerBound + 2)
        let strings = name.lowerBound + reader.u16(name.lowerBound + 4)
        for index in 0..<count {
            let record = name.lowerBound + 6 + 12 * index
            guard record + 12 <= name.upperBound, reader.u16(record + 6) == 6 else { continue }
            let platform = reader.u16(record)
            let length = reader.u16(record + 8)
            let offset = strings + reader.u16(record + 10)
            guard offset + length <= name.upperBound else { continue }
            let raw = reader.bytes[offset..<offset + length]
            let text: String
            if platform == 1 {
                text = String(decoding: raw, as: UTF8.self)
            } else {
                let units = stride(from: 0, to: length - 1, by: 2).map {
                    UInt16(raw[offset + $0]) << 8 | UInt16(raw[offset + $0 + 1])
                }
                text = String(decoding: units, as: UTF16.self)
            }
            let cleaned = String(
                text.unicodeScalars.filter {
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-")
                }
            )
            if !cleaned.isEmpty { return cleaned }
        }
        return nil
    }

    /// The glyph for `scalar`, if the font has one.
    func glyph(for scalar: Unicode.Scalar) -> UInt16? { characterMap[scalar.value] }

    /// Advance of `glyph` in 1/1000 em (PDF text space).
    func width(of glyph: UInt16) -> Int {
        Int(advances[Int(glyph)]) * 1000 / unitsPerEm
    }
}
