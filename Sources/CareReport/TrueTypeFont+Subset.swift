import Foundation

extension TrueTypeFont {
    /// A font file holding only glyph 0 and `glyphs`, renumbered: `glyphs[i]` becomes glyph `i + 1`, so a PDF that
    /// numbers characters the same way can use Identity-H without a CIDToGIDMap. Components of composite glyphs
    /// follow at the end (renumbered inside their composites). Tables: head, hhea, maxp, hmtx, loca, glyf and the
    /// hinting programs — what a PDF reader needs for an embedded CIDFontType2.
    func subset(_ glyphs: [UInt16]) -> [UInt8] {
        var order: [UInt16] = [0] + glyphs
        var newIndex: [UInt16: UInt16] = [:]
        for (index, glyph) in order.enumerated() where newIndex[glyph] == nil { newIndex[glyph] = UInt16(index) }
        // Components of composites, breadth first, appended once each.
        var next = 0
        while next < order.count {
            for component in components(of: order[next]) where newIndex[component] == nil {
                newIndex[component] = UInt16(order.count)
                order.append(component)
            }
            next += 1
        }
        var glyf: [UInt8] = []
        var loca: [UInt8] = []
        var hmtx: [UInt8] = []
        for glyph in order {
            loca += Self.be32(glyf.count)
            var outline = Array(outlines[Int(glyph)])
            renumberComponents(&outline, newIndex)
            glyf += outline
            while glyf.count % 4 != 0 { glyf.append(0) }
            hmtx += Self.be16(Int(advances[Int(glyph)])) + [0, 0]
            // Left side bearing: the outline's xMin (0 for blank glyphs), as the font's own hmtx would say.
            if outline.count >= 10 {
                hmtx[hmtx.count - 2] = outline[2]
                hmtx[hmtx.count - 1] = outline[3]
            }
        }
        loca += Self.be32(glyf.count)
        var head = self.head
        head.replaceSubrange(8..<12, with: [0, 0, 0, 0])
        head.replaceSubrange(50..<52, with: [0, 1])  // long loca offsets
        var hhea = self.hhea
        hhea.replaceSubrange(34..<36, with: Self.be16(order.count))
        var maxp = self.maxp
        maxp.replaceSubrange(4..<6, with: Self.be16(order.count))
        var tables: [(tag: String, data: [UInt8])] = [
            ("glyf", glyf), ("head", head), ("hhea", hhea), ("hmtx", hmtx), ("loca", loca), ("maxp", maxp),
        ]
        tables += hinting
        tables.sort { $0.tag < $1.tag }
        return Self.assemble(tables)
    }

    /// The glyphs a composite glyph refers to (none for a simple glyph).
    func components(of glyph: UInt16) -> [UInt16] {
        let outline = Array(outlines[Int(glyph)])
        var found: [UInt16] = []
        Self.walkComponents(outline) { at in found.append(UInt16(outline[at]) << 8 | UInt16(outline[at + 1])) }
        return found
    }

    func renumberComponents(_ outline: inout [UInt8], _ newIndex: [UInt16: UInt16]) {
        var positions: [Int] = []
        Self.walkComponents(outline) { positions.append($0) }
        for at in positions {
            let old = UInt16(outline[at]) << 8 | UInt16(outline[at + 1])
            let mapped = newIndex[old] ?? 0
            outline[at] = UInt8(mapped >> 8)
            outline[at + 1] = UInt8(mapped & 0xFF)
        }
    }

    /// Calls `visit` with the offset of each component's glyph index in a composite outline.
    static func walkComponents(_ outline: [UInt8], _ visit: (Int) -> Void) {
        guard outline.count >= 10, Int16(bitPattern: UInt16(outline[0]) << 8 | UInt16(outline[1])) < 0 else { return }
        var at = 10
        while at + 4 <= outline.count {
            let flags = Int(outline[at]) << 8 | Int(outline[at + 1])
            visit(at + 2)
            at += 4 + (flags & 0x1 != 0 ? 4 : 2)
            if flags & 0x8 != 0 {
                at += 2
            } else if flags & 0x40 != 0 {
                at += 4
            } else if flags & 0x80 != 0 {
                at += 8
            }
            if flags & 0x20 == 0 { break }
        }
    }

    /// An sfnt file from its tables (sorted by tag), with checksums and the head's checksum adjustment.
    static func assemble(_ tables: [(tag: String, data: [UInt8])]) -> [UInt8] {
        var searchRange = 1
        var selector = 0
        while searchRange * 2 <= tables.count {
            searchRange *= 2
            selector += 1
        }
        var out: [UInt8] = be32(0x0001_0000) + be16(tables.count) + be16(searchRange * 16) + be16(selector)
        out += be16(tables.count * 16 - searchRange * 16)
        var offset = 12 + 16 * tables.count
        var headOffset = 0
        for table in tables {
            out += Array(table.tag.utf8) + be32(checksum(table.data)) + be32(offset) + be32(table.data.count)
            if table.tag == "head" { headOffset = offset }
            offset += (table.data.count + 3) / 4 * 4
        }
        for table in tables {
            out += table.data
            while out.count % 4 != 0 { out.append(0) }
        }
        let adjustment = (0xB1B0_AFBA &- checksum(out)) & 0xFFFF_FFFF
        out.replaceSubrange(headOffset + 8..<headOffset + 12, with: be32(adjustment))
        return out
    }

    static func checksum(_ data: [UInt8]) -> Int {
        var sum: UInt32 = 0
        var index = 0
        while index < data.count {
            var word: UInt32 = 0
            for byte in 0..<4 { word = word << 8 | UInt32(index + byte < data.count ? data[index + byte] : 0) }
            sum = sum &+ word
            index += 4
        }
        return Int(sum)
    }

    static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    static func be32(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
