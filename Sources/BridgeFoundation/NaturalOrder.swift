/// Orders names as people count: runs of digits compare by their value, so `bed-2` comes before `bed-10`; the
/// rest compares character by character (case-sensitive), and equal values with different digits (`bed-02`,
/// `bed-2`) fall back to plain order so the order is total.
public enum NaturalOrder {
    /// Whether `lhs` comes before `rhs`.
    public static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        var left = Array(lhs.unicodeScalars)[...]
        var right = Array(rhs.unicodeScalars)[...]
        while let a = left.first, let b = right.first {
            if isDigit(a), isDigit(b) {
                let leftRun = left.prefix { isDigit($0) }
                let rightRun = right.prefix { isDigit($0) }
                left = left.dropFirst(leftRun.count)
                right = right.dropFirst(rightRun.count)
                let leftValue = leftRun.drop { $0 == "0" }
                let rightValue = rightRun.drop { $0 == "0" }
                if leftValue.count != rightValue.count { return leftValue.count < rightValue.count }
                if let difference = zip(leftValue, rightValue).first(where: { $0 != $1 }) {
                    return difference.0.value < difference.1.value
                }
                continue
            }
            if a != b { return a.value < b.value }
            left = left.dropFirst()
            right = right.dropFirst()
        }
        if left.isEmpty != right.isEmpty { return left.isEmpty }
        return lhs < rhs
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
}
