import Foundation
import Synchronization

/// The system's TrueType fonts, found through fontconfig at run time, for the characters the standard PDF fonts
/// lack (Greek, Cyrillic, Arabic, Hebrew, CJK, symbols). Fonts are not bundled: DejaVu Sans alone is 750 KB and
/// a CJK font several MB, and Debian packages them (`fonts-dejavu-core`, `fonts-wqy-microhei`). `fc-match -s`
/// gives the candidates in fontconfig's order of preference; only TrueType-outline files are used (CFF `.otf`
/// fonts cannot be embedded as CIDFontType2), each read the first time a character needs it. Without fontconfig
/// the Debian path of DejaVu Sans is tried; a character no installed font covers is printed as `?`.
final class FontLibrary: Sendable {
    static let shared = FontLibrary()

    private struct State {
        var candidates: [Bool: [String]] = [:]
        var loaded: [String: TrueTypeFont?] = [:]
        var choice: [Bool: [UInt32: TrueTypeFont?]] = [:]
    }

    private let state = Mutex(State())
    /// At most this many candidate files per weight are opened: a desktop lists hundreds.
    static let candidateLimit = 40

    /// The first installed font, in fontconfig's order, with a glyph for `scalar`.
    func font(for scalar: Unicode.Scalar, bold: Bool) -> TrueTypeFont? {
        state.withLock { state in
            if let known = state.choice[bold]?[scalar.value] { return known }
            if state.candidates[bold] == nil { state.candidates[bold] = Self.candidates(bold: bold) }
            var found: TrueTypeFont?
            for path in state.candidates[bold] ?? [] {
                if state.loaded[path] == nil { state.loaded[path] = .some(try? TrueTypeFont(path: path)) }
                if let font = state.loaded[path] ?? nil, font.glyph(for: scalar) != nil {
                    found = font
                    break
                }
            }
            state.choice[bold, default: [:]][scalar.value] = .some(found)
            return found
        }
    }

    /// TrueType files fontconfig offers for sans-serif text, best first.
    static func candidates(bold: Bool) -> [String] {
        var paths: [String] = []
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["fc-match", "-s", "--format=%{file}\\n", bold ? "sans-serif:bold" : "sans-serif"]
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        if (try? process.run()) != nil {
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            if process.terminationStatus == 0 {
                paths = String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
            }
        }
        let fallback = "/usr/share/fonts/truetype/dejavu/DejaVuSans\(bold ? "-Bold" : "").ttf"
        if !paths.contains(fallback) { paths.append(fallback) }
        var seen = Set<String>()
        return paths.filter { path in
            let lower = path.lowercased()
            return (lower.hasSuffix(".ttf") || lower.hasSuffix(".ttc")) && seen.insert(path).inserted
        }.prefix(candidateLimit).map { $0 }
    }
}
