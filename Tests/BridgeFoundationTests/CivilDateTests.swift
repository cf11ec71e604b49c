import BridgeFoundation
import Foundation
import Testing

@Suite struct CivilDateTests {
    @Test func dayNumbersMatchFoundation() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        // 1600 to 2400: Foundation switches to the Julian calendar before 1582.
        for days in stride(from: Int64(-135_000), through: 157_000, by: 97) {
            let date = Date(timeIntervalSince1970: Double(days) * 86_400)
            let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: date)
            let civil = CivilDate.civil(dayNumber: days)
            #expect(civil.year == parts.year && civil.month == parts.month && civil.day == parts.day)
            #expect(CivilDate.dayNumber(year: civil.year, month: civil.month, day: civil.day) == days)
            #expect(CivilDate.weekday(dayNumber: days) + 1 == parts.weekday)
        }
    }

    @Test func monthLengths() {
        #expect(CivilDate.daysInMonth(year: 2024, month: 2) == 29)
        #expect(CivilDate.daysInMonth(year: 1900, month: 2) == 28)
        #expect(CivilDate.daysInMonth(year: 2000, month: 2) == 29)
        #expect(CivilDate.daysInMonth(year: 2026, month: 11) == 30)
    }

    @Test func floorDivision() {
        #expect(Int64(-1).floorDiv(86_400) == -1)
        #expect(Int64(-86_400).floorDiv(86_400) == -1)
        #expect((-3).floorMod(7) == 4)
        #expect(10.floorMod(7) == 3)
    }
}
