import Foundation
import Hummingbird

/// The days a screen shows, from `?from=DAY&to=DAY` (both days included): without `to`, the seven days from
/// `from`; without either, the seven days up to the end of today.
struct DayPeriod: Sendable, Hashable {
    let first: CalendarDay
    let last: CalendarDay

    var from: Date { first.start }
    var to: Date { last.end }

    /// Reads the period from the request's query.
    /// - Throws: ``WebError`` `.badRequest` for a day that is not `YYYY-MM-DD`, or a first day after the last.
    init(_ request: Request, now: Date, zone: TimeZone) throws {
        func day(_ name: String) throws -> CalendarDay? {
            guard let text = request.uri.queryParameters[Substring(name)].map(String.init), !text.isEmpty else {
                return nil
            }
            guard let day = CalendarDay(key: text, zone: zone) else {
                throw WebError(.badRequest, "'\(text)' is not a day; use YYYY-MM-DD.")
            }
            return day
        }
        let from = try day("from")
        let last = try day("to") ?? from?.adding(days: 6, zone: zone) ?? CalendarDay(containing: now, zone: zone)
        let first = from ?? last.adding(days: -6, zone: zone)
        guard first.start < last.end else { throw WebError(.badRequest, "The period's first day is after its last.") }
        self.first = first
        self.last = last
    }
}
