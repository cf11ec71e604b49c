import BridgeFoundation
import GATTDecoding
import Testing

@Suite struct RecordAccessControlPointTests {
    typealias RACP = RecordAccessControlPoint

    @Test func successResponseEndsTheProcedure() throws {
        // 06 00 01 01: Response Code, operator null, request op 1 (report stored records), success
        let value = try RACP.decode(hex("06 00 01 01"))
        #expect(value.opCode == .responseCode)
        #expect(value.operator == .null)
        #expect(value.requestOpCode == .reportStoredRecords)
        #expect(value.responseValue == .success)
        #expect(value.endsProcedureSuccessfully)
        #expect(
            value.fields.keys == [
                "opCode", "opCodeName", "operator", "operatorName", "requestOpCode", "requestOpCodeName",
                "responseValue",
                "responseValueName",
            ]
        )
        #expect(value.fields["responseValueName"] == .string("success"))
    }

    @Test func noRecordsFoundAlsoEndsTheProcedureButErrorsDoNot() throws {
        #expect(try RACP.decode(hex("06 00 01 06")).endsProcedureSuccessfully)
        #expect(try RACP.decode(hex("06 00 01 06")).fields["responseValueName"] == .string("no records found"))
        let unsupported = try RACP.decode(hex("06 00 01 04"))
        #expect(!unsupported.endsProcedureSuccessfully)
        #expect(unsupported.responseValue == .operatorNotSupported)
        #expect(try RACP.decode(hex("06 00 04 09")).responseValue?.name == "operand not supported")
        #expect(try RACP.decode(hex("06 00 01 0A")).responseValue?.name == "reserved")
    }

    @Test(arguments: [
        ("05 00 07", UInt32(7), 1), ("05 00 07 01", 0x0107, 2), ("05 00 07 01 02 03", 0x0302_0107, 4),
    ])
    func numberOfStoredRecordsAcceptsOneTwoOrFourOctets(payload: String, count: UInt32, width: Int) throws {
        let value = try RACP.decode(hex(payload))
        #expect(value.opCode == .numberOfStoredRecordsResponse)
        #expect(value.numberOfRecords == count)
        #expect(value.numberOfRecordsWidth == width)
        #expect(value.fields["numberOfRecords"] == .int(Int(count)))
        #expect(value.fields["operand"] == nil)
    }

    @Test(arguments: ["05 00", "05 00 01 02 03", "05 00 01 02 03 04 05"])
    func numberOfStoredRecordsRejectsOtherWidths(payload: String) {
        #expect(throws: GATTDecodingError.self) { try RACP.decode(hex(payload)) }
    }

    @Test func requestsEncodeToTheDocumentedBytes() {
        #expect(RACP.Request.reportAllRecords.bytes == hex("01 01"))
        #expect(RACP.Request.reportRecords(fromSequenceNumber: 0x0110).bytes == hex("01 03 01 10 01"))
        #expect(RACP.Request.reportNumberOfAllRecords.bytes == hex("04 01"))
        #expect(RACP.Request.reportNumberOfRecords(fromSequenceNumber: 6).bytes == hex("04 03 01 06 00"))
        #expect(RACP.Request.abort.bytes == hex("03 00"))
    }

    @Test(arguments: [
        RACP.Request.reportAllRecords, .reportRecords(fromSequenceNumber: 0),
        .reportRecords(fromSequenceNumber: 0xFFFF),
        .reportRecords(fromSequenceNumber: 0x1234), .reportNumberOfAllRecords,
        .reportNumberOfRecords(fromSequenceNumber: 42),
        .abort,
    ])
    func requestsRoundTrip(request: RACP.Request) throws {
        let decoded = try RACP.decode(request.bytes)
        #expect(decoded.request == request)
        #expect(decoded.unparsedOperand.isEmpty)
    }

    @Test func decodesAGreaterOrEqualRequestsFilter() throws {
        let value = try RACP.decode(hex("01 03 01 10 00"))
        #expect(value.opCode == .reportStoredRecords)
        #expect(value.operator == .greaterThanOrEqualTo)
        #expect(value.filterType == 1)
        #expect(value.filterValues == [.sequenceNumber(16)])
        #expect(value.fields["filterValues"] == .array([.int(16)]))
    }

    @Test func decodesAUserFacingTimeRange() throws {
        // 01 04 02 + two Date Times: report records from 2024-03-15 07:30:00 to 2024-03-16 07:30:00
        let later = DateTime(year: 2024, month: 3, day: 16, hours: 7, minutes: 30, seconds: 0)
        let value = try RACP.decode([0x01, 0x04, 0x02] + DateTime.exampleBytes + later.bytes)
        #expect(value.operator == .withinRangeOf)
        #expect(value.filterValues == [.userFacingTime(.example), .userFacingTime(later)])
        #expect(value.request == nil)
        #expect(
            value.fields["filterValues"] == .array([.string("2024-03-15T07:30:00"), .string("2024-03-16T07:30:00")])
        )
    }

    @Test func unknownOpCodesAndFilterTypesKeepTheirOperand() throws {
        let unknown = try RACP.decode(hex("FF 07 AA BB"))
        #expect(unknown.opCode.name == "reserved")
        #expect(unknown.operator.name == "reserved")
        #expect(unknown.unparsedOperand == [0xAA, 0xBB])
        #expect(unknown.fields["operand"] == .string("aabb"))
        let unknownFilter = try RACP.decode(hex("01 02 09 01 02"))
        #expect(unknownFilter.filterType == 9)
        #expect(unknownFilter.filterValues.isEmpty)
        #expect(unknownFilter.unparsedOperand == [0x01, 0x02])
    }

    @Test(arguments: [
        "", "06", "06 00", "06 00 01", "01", "01 03", "01 03 01", "01 03 01 10", "01 04 01 10 00 20",
        "04 02 02 E8 07 03 0F 07 1E",
    ])
    func rejectsTruncatedPayloads(payload: String) {
        #expect(throws: GATTDecodingError.self) { try RACP.decode(hex(payload)) }
    }

    @Test func rejectsEveryTruncatedPrefix() {
        expectEveryPrefixThrows(RACP.self, hex("06 00 01 01"))
        expectEveryPrefixThrows(RACP.self, hex("01 03 01 10 00"))
        expectEveryPrefixThrows(RACP.self, [0x01, 0x04, 0x02] + DateTime.exampleBytes + DateTime.exampleBytes)
    }
}
