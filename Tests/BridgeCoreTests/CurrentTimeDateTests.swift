import BridgeCore
import Foundation
import GATTDecoding
import Testing

@Suite struct CurrentTimeDateTests {
    @Test func setsTheDeviceClockToLocalWallTime() throws {
        // 2024-03-15T06:30:00.5Z is 07:30:00.5 in Berlin, a Friday; 0.5 s = 128/256
        let date = Date(timeIntervalSince1970: 1_710_484_200.5)
        let value = CurrentTime(date: date, in: TimeZone(identifier: "Europe/Berlin")!)
        #expect(value.dateTime == DateTime(year: 2024, month: 3, day: 15, hours: 7, minutes: 30, seconds: 0))
        #expect(value.dayOfWeek == 5)
        #expect(value.fractions256 == 128)
        #expect(value.adjustReason == .manualTimeUpdate)
        #expect(value.bytes == [0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00, 0x05, 0x80, 0x01])
        #expect(try CurrentTime.decode(value.bytes) == value)
        let utc = CurrentTime(date: date, in: TimeZone(identifier: "UTC")!, adjustReason: .externalReferenceTimeUpdate)
        #expect(utc.dateTime.hours == 6)
        #expect(utc.adjustReason.rawValue == 0x02)
    }
}
