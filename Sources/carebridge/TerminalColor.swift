import CarePlan
import CareStore

/// The colours of the command line's tables: severities and event states, as ANSI SGR sequences.
enum TerminalColor: String {
    case red = "31"
    case boldRed = "1;31"
    case yellow = "33"
    case green = "32"

    /// `text` in this colour, reset after it.
    func paint(_ text: String) -> String { "\u{1B}[\(rawValue)m\(text)\u{1B}[0m" }

    /// Critical bold red, warning yellow; info stays plain.
    static func severity(_ severity: AlertSeverity) -> TerminalColor? {
        switch severity {
        case .critical: .boldRed
        case .warning: .yellow
        case .info: nil
        }
    }

    /// Missed red, late yellow, done green; due and not done stay plain.
    static func state(_ state: EventState) -> TerminalColor? {
        switch state {
        case .missed: .red
        case .late: .yellow
        case .done: .green
        default: nil
        }
    }
}
