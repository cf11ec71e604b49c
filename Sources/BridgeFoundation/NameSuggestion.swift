/// "Did you mean": the closest of a set of names (commands, tasks, patients) to a mistyped one.
public enum NameSuggestion {
    /// The name in `names` closest to `typed` (edit distance at most a third of its length, at least 1, or
    /// `typed` a prefix of exactly one name); nil when none is close.
    public static func closest(to typed: String, in names: [String]) -> String? {
        let key = typed.lowercased()
        let prefixed = names.filter { $0.lowercased().hasPrefix(key) }
        if key.count >= 2, prefixed.count == 1 { return prefixed[0] }
        let limit = max(1, key.count / 3)
        let scored = names.map { ($0, distance(key, $0.lowercased())) }.filter { $0.1 <= limit }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// `did you mean 'weigh-in'? ` (with its trailing space, to go before the list of names), or "" when no name is
    /// close to `typed`.
    public static func didYouMean(_ typed: String, in names: [String]) -> String {
        closest(to: typed, in: names.filter { $0 != typed }).map { "did you mean '\($0)'? " } ?? ""
    }

    /// Levenshtein distance with adjacent transpositions counted as one edit (`evnets` → `events`).
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
