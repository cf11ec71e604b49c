import BridgeFoundation
import DeviceSessions
import GATTDecoding
import Testing

/// Version 3 oximetry files of Viatom devices, constructed from the layout MackeyStingray/o2r reads
/// (`o2r/o2file.py`, commit e8ad57f9); no published file was found, so these bytes are ours.
@Suite struct ViatomOximetryFileTests {
    /// A header: version 3, 2021-04-27 22:50:10, file size 55, 12 s, summary bytes zero.
    static func header(duration: UInt32 = 12, size: UInt32 = 55) -> [UInt8] {
        var bytes: [UInt8] = [0x03, 0x00, 0xE5, 0x07, 4, 27, 22, 50, 10]
        bytes += [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)]
        bytes += [UInt8(duration & 0xFF), UInt8(duration >> 8 & 0xFF), UInt8(duration >> 16 & 0xFF), 0]
        return bytes + [UInt8](repeating: 0, count: 40 - bytes.count)
    }

    /// Three records 4 s apart: 97 % 62 bpm; 96 % 64 bpm with motion 3; the device's invalid flag (finger out).
    static let records: [UInt8] = [97, 62, 0, 0, 0, 96, 64, 0, 3, 0, 255, 255, 1, 0, 0]

    @Test func readsTheStartSpacingAndEachRecord() throws {
        let file = try ViatomOximetryFile(Self.header() + Self.records)
        #expect(file.start == DateTime(year: 2021, month: 4, day: 27, hours: 22, minutes: 50, seconds: 10))
        #expect(file.interval == 4)
        #expect(file.records.map(\.offset) == [0, 4, 8])
        #expect(file.records.map(\.oxygenSaturation) == [97, 96, 255])
        #expect(file.records.map(\.pulseRate) == [62, 64, 255])
        #expect(file.records.map(\.isInvalid) == [false, false, true])
        #expect(file.records[1].motion == 3)
        #expect(file.records[1].bytes == [96, 64, 0, 3, 0])
    }

    @Test func twoSecondSpacingAndAnOutOfRangeSpO2IsInvalid() throws {
        let file = try ViatomOximetryFile(Self.header(duration: 4) + [5, 60, 0, 0, 0, 98, 61, 0, 0, 0])
        #expect(file.interval == 2)
        #expect(file.records.map(\.isInvalid) == [true, false])
    }

    @Test func refusesWhatIsNotAWholeVersion3File() throws {
        var version2 = Self.header() + Self.records
        version2[0] = 2
        #expect(throws: ViatomOximetryFile.Failure.version(2)) { try ViatomOximetryFile(version2) }
        #expect(throws: ViatomOximetryFile.Failure.partialRecord(bytes: 14)) {
            try ViatomOximetryFile(Self.header() + Self.records.dropLast())
        }
        #expect(throws: ViatomOximetryFile.Failure.spacing(duration: 9, records: 3)) {
            try ViatomOximetryFile(Self.header(duration: 9) + Self.records)
        }
        var noDate = Self.header() + Self.records
        noDate[4] = 13
        #expect(throws: ViatomOximetryFile.Failure.self) { try ViatomOximetryFile(noDate) }
        for length in 0..<40 {
            #expect(throws: ViatomOximetryFile.Failure.self) {
                try ViatomOximetryFile(Array(Self.header().prefix(length)))
            }
        }
    }
}
