import Foundation

/// How urgent an alert is.
public enum AlertSeverity: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case info, warning, critical

    public static func < (lhs: AlertSeverity, rhs: AlertSeverity) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
