public import BridgeCore

extension DeviceProfile.Match {
    /// True when every criterion this match gives holds for the advertisement.
    public func matches(_ advertisement: Advertisement) -> Bool {
        if isEmpty { return false }
        guard holds(for: advertisement) else { return false }
        return !exclusions.contains { $0.holds(for: advertisement) }
    }

    /// Every criterion given holds (without `not`); for a `not` object, which may give a single criterion.
    func holds(for advertisement: Advertisement) -> Bool {
        if !serviceUUIDs.isEmpty, !serviceUUIDs.contains(where: advertisement.serviceUUIDs.contains) { return false }
        if !serviceData.isEmpty, !serviceData.contains(where: { advertisement.serviceData[$0] != nil }) { return false }
        if let manufacturerID, advertisement.manufacturerData[manufacturerID] == nil { return false }
        if let namePattern {
            guard let name = advertisement.name, Glob.matches(namePattern, name) else { return false }
        }
        if !manufacturerData.isEmpty, !manufacturerData.contains(where: { $0.matches(advertisement) }) { return false }
        if !serviceDataPatterns.isEmpty, !serviceDataPatterns.contains(where: { $0.matches(advertisement) }) {
            return false
        }
        return true
    }
}

/// `*` and `?` wildcards over characters, `|` between alternatives (`"013197*|0202B6*"`); everything else
/// literal, case-sensitive.
enum Glob {
    static func matches(_ pattern: String, _ text: String) -> Bool {
        pattern.split(separator: "|", omittingEmptySubsequences: false).contains {
            matchesOne(String($0), text)
        }
    }

    private static func matchesOne(_ pattern: String, _ text: String) -> Bool {
        let pattern = Array(pattern)
        let text = Array(text)
        var p = 0
        var t = 0
        var star: Int?
        var resume = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "?" || pattern[p] == text[t] {
                p += 1
                t += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                resume = t
                p += 1
            } else if let star {
                p = star + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
