import BridgeFoundation
import Foundation
import Testing

@Suite struct ZoneOffsetMemoTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    /// Local seconds of a wall-clock time (days since 1970 × 86,400 + time of day).
    static func local(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Int64 {
        CivilDate.dayNumber(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60)
    }

    @Test func offsetsMatchTheZoneAcrossYears() {
        var memo = ZoneOffsetMemo(zone: Self.berlin)
        for hours in stride(from: Int64(0), to: 24 * 365 * 3, by: 7) {
            let utc = Int64(1_767_225_600) + hours * 3600
            let expected = Int64(Self.berlin.secondsFromGMT(for: Date(timeIntervalSince1970: Double(utc))))
            #expect(memo.offset(at: utc) == expected)
        }
    }

    @Test func wallClockTimesFollowTheDSTPolicy() {
        var memo = ZoneOffsetMemo(zone: Self.berlin)
        // 2026-03-29 02:30 does not exist: moved forward by the gap, to 03:30 CEST = 01:30Z.
        #expect(memo.instant(ofLocal: Self.local(2026, 3, 29, 2, 30)) == Self.local(2026, 3, 29, 1, 30))
        // 2026-10-25 02:30 happens twice: the earlier (CEST, 00:30Z).
        #expect(memo.instant(ofLocal: Self.local(2026, 10, 25, 2, 30)) == Self.local(2026, 10, 25, 0, 30))
        // Ordinary times either side.
        #expect(memo.instant(ofLocal: Self.local(2026, 7, 1, 12)) == Self.local(2026, 7, 1, 10))
        #expect(memo.instant(ofLocal: Self.local(2026, 12, 1, 12)) == Self.local(2026, 12, 1, 11))
    }

    @Test func theSharedMemoAgreesWithAnOwnedOne() {
        let zones = ["UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe"].compactMap {
            TimeZone(identifier: $0)
        }
        for zone in zones {
            var own = ZoneOffsetMemo(zone: zone)
            for day in stride(from: Int64(20_400), to: 20_800, by: 3) {
                let local = day * 86_400 + 9_000
                #expect(ZoneOffsetMemo.shared.instant(ofLocal: local, in: zone) == own.instant(ofLocal: local))
            }
        }
    }
}
