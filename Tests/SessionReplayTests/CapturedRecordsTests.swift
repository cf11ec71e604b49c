import BridgeCore
import BridgeFoundation
import GATTDecoding
import Testing

@testable import SessionReplay

/// The standard Record Access Control Point answers a capture's records give to the bridge's requests.
@Suite struct CapturedRecordsTests {
    /// Glucose Measurements seq 1…3 (2026-11-19 06:40, 2026-11-19 12:30, 2026-11-20 07:00), the first with a
    /// context.
    static let first = "120100ea070b13062800020812"
    static let context = "02010001"
    static let second = "020200ea070b130c1e0068b012"
    static let third = "020300ea070b1407000078b012"

    static func value(_ uuid: BluetoothUUID, _ hex: String) -> CharacteristicValue {
        CharacteristicValue(characteristic: uuid, bytes: try! Hex.bytes(hex), delivery: .notification)
    }

    /// The records of one recorded "report all" (01 01 … 06 00 01 01).
    static func records(_ measurements: [String] = [first, second, third]) -> CapturedRecords {
        var records = CapturedRecords()
        records.recordedRequest([0x01, 0x01])
        for hex in measurements {
            records.recordedValue(value(.glucoseMeasurement, hex))
            if hex == first { records.recordedValue(value(.glucoseMeasurementContext, context)) }
        }
        let ended = records.recordedResponse([0x06, 0x00, 0x01, 0x01])
        #expect(ended)
        return records
    }

    static func answer(_ records: CapturedRecords, _ hex: String) -> (values: [String], response: String) {
        let answer = records.answer(try! Hex.bytes(hex))
        return (answer.values.map { Hex.string($0.bytes) }, Hex.string(answer.response))
    }

    @Test func theRecordsAreKnownOnlyOnceARecordedReportEnded() {
        var records = CapturedRecords()
        records.recordedRequest([0x01, 0x01])
        records.recordedValue(Self.value(.glucoseMeasurement, Self.second))
        #expect(!records.known)
        let count = records.recordedResponse([0x05, 0x00, 0x01, 0x00])
        #expect(!count, "a count is not the end of a report")
        let ended = records.recordedResponse([0x06, 0x00, 0x01, 0x01])
        #expect(ended)
        #expect(records.known)
    }

    @Test func numberOfRecordsAllAndFromASequenceNumber() {
        let records = Self.records()
        #expect(Self.answer(records, "0401").response == "05000300")
        #expect(Self.answer(records, "0403010200").response == "05000200", "sequence numbers ≥ 2")
        #expect(Self.answer(records, "0403010900").response == "05000000")
    }

    @Test func reportAllGivesEachRecordWithItsContextThenSuccess() {
        let answer = Self.answer(Self.records(), "0101")
        #expect(answer.values == [Self.first, Self.context, Self.second, Self.third])
        #expect(answer.response == "06000101")
    }

    @Test func reportBySequenceNumberTimeFirstAndLast() {
        let records = Self.records()
        #expect(Self.answer(records, "0103010300").values == [Self.third])
        #expect(Self.answer(records, "0102010100").values == [Self.first, Self.context])
        #expect(Self.answer(records, "01040102000300").values == [Self.second, Self.third])
        // User-facing time ≥ 2026-11-19 12:00:00.
        #expect(Self.answer(records, "010302ea070b130c0000").values == [Self.second, Self.third])
        #expect(Self.answer(records, "0105").values == [Self.first, Self.context])
        #expect(Self.answer(records, "0106").values == [Self.third])
    }

    @Test func noMatchingRecordAnAbortAndADeleteAreAnsweredAsTheStandardSays() {
        let records = Self.records()
        #expect(Self.answer(records, "0103010900") == ([], "06000106"), "no records found")
        #expect(Self.answer(records, "0300") == ([], "06000301"), "abort: success")
        #expect(Self.answer(records, "0201") == ([], "06000202"), "a capture never says a delete succeeded")
        #expect(Self.answer(records, "0103030100").response == "06000109", "an unknown filter type")
        #expect(Self.answer(records, "0100").response == "06000103", "operator null is invalid")
    }

    @Test func aRecordShownByTwoRecordedDownloadsIsKeptOnce() {
        var records = Self.records()
        records.recordedRequest([0x01, 0x03, 0x01, 0x02, 0x00])
        records.recordedValue(Self.value(.glucoseMeasurement, Self.second))
        records.recordedValue(Self.value(.glucoseMeasurement, Self.third))
        let ended = records.recordedResponse([0x06, 0x00, 0x01, 0x01])
        #expect(ended)
        #expect(records.records.count == 3)
    }
}
