/// The two standard PDF fonts the report uses (Helvetica, Helvetica-Bold: every PDF reader has them, nothing is
/// embedded), their WinAnsi encoding and their glyph widths (Adobe's AFM metrics, in 1/1000 em). Characters
/// WinAnsi lacks are drawn with embedded TrueType fonts (`PDFFontSet`); the style names which weight to find.
enum StandardFont: Sendable {
    case regular, bold

    var resourceName: String { self == .regular ? "F1" : "F2" }
    var baseFont: String { self == .regular ? "Helvetica" : "Helvetica-Bold" }

    /// Widths of WinAnsi codes 32…126.
    static let regularWidths: [Int] = [
        278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556,
        556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667,
        556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556,
        556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722,
        500, 500, 500, 334, 260, 334, 584,
    ]
    static let boldWidths: [Int] = [
        278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556,
        556, 556, 556, 556, 333, 333, 584, 584, 584, 611, 975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722,
        611, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556, 333, 556,
        611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611, 611, 611, 389, 556, 333, 611, 556, 778,
        556, 556, 500, 389, 280, 389, 584,
    ]

    /// The text in WinAnsi bytes; characters WinAnsi lacks are spelled out (`→` as `->`, `≥` as `>=`, `Ω`
    /// as `ohm`) or `?`.
    static func encode(_ text: String) -> [UInt8] {
        text.unicodeScalars.flatMap { encode($0) ?? [0x3F] }
    }

    /// One character in WinAnsi bytes, spelled out where that reads as well (`→` as `->`), or nil when
    /// WinAnsi lacks it (the PDF then draws it with an embedded font).
    static func encode(_ scalar: Unicode.Scalar) -> [UInt8]? {
        let value = scalar.value
        switch value {
        case 0x20...0x7E, 0xA0...0xFF: return [UInt8(value)]
        case 0x2013: return [0x96]
        case 0x2014: return [0x97]
        case 0x2026: return [0x85]
        case 0x2018: return [0x91]
        case 0x2019: return [0x92]
        case 0x201C: return [0x93]
        case 0x201D: return [0x94]
        case 0x2022: return [0x95]
        case 0x20AC: return [0x80]
        case 0x2192: return Array("->".utf8)
        case 0x2265: return Array(">=".utf8)
        case 0x2264: return Array("<=".utf8)
        case 0x2212: return [0x2D]
        case 0x03A9, 0x2126: return Array("ohm".utf8)  // Ω: impedance in the readings table
        case 0x09, 0x0A, 0x0D: return [0x20]
        default: return nil
        }
    }

    /// The width of WinAnsi `bytes` in 1/1000 em.
    func units(_ bytes: [UInt8]) -> Int {
        let table = self == .regular ? Self.regularWidths : Self.boldWidths
        var units = 0
        for byte in bytes {
            units += (32...126).contains(byte) ? table[Int(byte) - 32] : (byte == 0x85 ? 1000 : 556)
        }
        return units
    }
}
