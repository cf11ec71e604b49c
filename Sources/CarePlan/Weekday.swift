/// A day of the week, numbered as Foundation numbers them (1 = Sunday … 7 = Saturday).
public enum Weekday: Int, Sendable, Hashable, Codable, CaseIterable {
    case sunday = 1
    case monday, tuesday, wednesday, thursday, friday, saturday
}
