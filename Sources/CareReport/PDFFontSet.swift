import Foundation

/// The fonts one PDF draws text with: Helvetica and Helvetica-Bold (`/F1`, `/F2`, not embedded) for what WinAnsi
/// encodes, and subsets of system TrueType fonts (`/F3`…, embedded as Type0/CIDFontType2 with Identity-H and a
/// ToUnicode map, so text extracts as written) for everything else — a patient's name in Arabic or Chinese
/// included. It collects the glyphs used while the layout measures and draws, then writes the font objects.
///
/// Not shaped: Arabic letters are drawn in their isolated forms, left to right in logical order, and emoji print
/// only where an installed TrueType font has an outline for them (colour bitmap fonts are not embedded).
final class PDFFontSet {
    /// One embedded font: its glyphs in first-use order; a glyph's position + 1 is its character id.
    final class Embedded {
        let font: TrueTypeFont
        let resourceName: String
        var glyphs: [UInt16] = []
        var characterIDs: [UInt16: UInt16] = [:]
        /// The text each character id stands for (ToUnicode).
        var texts: [UInt16: String] = [:]

        init(font: TrueTypeFont, resourceName: String) {
            self.font = font
            self.resourceName = resourceName
        }

        func characterID(_ glyph: UInt16, text: String) -> UInt16 {
            if let known = characterIDs[glyph] { return known }
            glyphs.append(glyph)
            let id = UInt16(glyphs.count)
            characterIDs[glyph] = id
            texts[id] = text
            return id
        }
    }

    /// A stretch of text in one font.
    enum Run {
        case standard(StandardFont, [UInt8])
        case embedded(Embedded, [UInt16])
    }

    let library: FontLibrary
    private(set) var embedded: [Embedded] = []
    private var byPath: [String: Embedded] = [:]

    init(library: FontLibrary = .shared) {
        self.library = library
    }

    /// `text` split into runs of one font each. Characters WinAnsi has (or spells out) stay in Helvetica.
    func runs(_ text: String, font style: StandardFont) -> [Run] {
        var runs: [Run] = []
        // The run being built, extended in place (a long word is one run).
        var bytes: [UInt8] = []
        var ids: [UInt16] = []
        var target: Embedded?
        func flush() {
            if !bytes.isEmpty { runs.append(.standard(style, bytes)) }
            if let target, !ids.isEmpty { runs.append(.embedded(target, ids)) }
            bytes = []
            ids = []
        }
        func append(_ more: [UInt8]) {
            if !ids.isEmpty { flush() }
            bytes += more
        }
        func append(_ id: UInt16, in font: Embedded) {
            if !bytes.isEmpty || target !== font { flush() }
            target = font
            ids.append(id)
        }
        for scalar in Self.visualOrder(Array(text.precomposedStringWithCanonicalMapping.unicodeScalars)) {
            if let encoded = StandardFont.encode(scalar) {
                append(encoded)
            } else if scalar.properties.isDefaultIgnorableCodePoint {
                continue  // joiners and variation selectors: nothing to draw
            } else if let font = library.font(for: scalar, bold: style == .bold), let glyph = font.glyph(for: scalar) {
                let embedded = embeddedFont(font)
                append(embedded.characterID(glyph, text: String(scalar)), in: embedded)
            } else {
                append([0x3F])
            }
        }
        flush()
        return runs
    }

    /// Right-to-left stretches (Hebrew, Arabic, with the spaces and punctuation between their words) reversed,
    /// so that the glyphs drawn left to right read right to left, and text extraction, which expects visual
    /// order, gives back the logical order. A simplified bidi: digits and Latin break a stretch, brackets are not
    /// mirrored.
    static func visualOrder(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
        func rightToLeft(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF: scalar.properties.isAlphabetic
            default: false
            }
        }
        func neutral(_ scalar: Unicode.Scalar) -> Bool {
            !scalar.properties.isAlphabetic && scalar.properties.numericType == nil
        }
        guard scalars.contains(where: rightToLeft) else { return scalars }
        var out = scalars
        var index = 0
        while index < scalars.count {
            guard rightToLeft(scalars[index]) else {
                index += 1
                continue
            }
            var end = index
            var probe = index + 1
            while probe < scalars.count, rightToLeft(scalars[probe]) || neutral(scalars[probe]) {
                if rightToLeft(scalars[probe]) { end = probe }
                probe += 1
            }
            out.replaceSubrange(index...end, with: scalars[index...end].reversed())
            index = end + 1
        }
        return out
    }

    func embeddedFont(_ font: TrueTypeFont) -> Embedded {
        if let known = byPath[font.path] { return known }
        let new = Embedded(font: font, resourceName: "F\(embedded.count + 3)")
        embedded.append(new)
        byPath[font.path] = new
        return new
    }

    /// The width of `text` at `size` points.
    func width(_ text: String, font style: StandardFont, size: Double) -> Double {
        var units = 0
        for run in runs(text, font: style) {
            switch run {
            case .standard(let font, let bytes): units += font.units(bytes)
            case .embedded(let font, let ids):
                units += ids.reduce(0) { $0 + font.font.width(of: font.glyphs[Int($1) - 1]) }
            }
        }
        return Double(units) * size / 1000
    }

    /// Text-showing operators for `text` (inside `BT … ET`), switching font at each run.
    func show(_ text: String, font style: StandardFont, size: Double) -> String {
        var out = ""
        for run in runs(text, font: style) {
            switch run {
            case .standard(let font, let bytes):
                out += "/\(font.resourceName) \(PDFWriter.number(size)) Tf <\(Self.hex(bytes))> Tj "
            case .embedded(let font, let ids):
                let hex = ids.map { String(format: "%04X", $0) }.joined()
                out += "/\(font.resourceName) \(PDFWriter.number(size)) Tf <\(hex)> Tj "
            }
        }
        return out
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }
}
