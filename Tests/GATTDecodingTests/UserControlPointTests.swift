import BridgeFoundation
import GATTDecoding
import Testing

@Suite struct UserControlPointTests {
    @Test func registerResponseCarriesTheNewUsersIndex() throws {
        // 20 response code | 01 request: register new user | 01 success | 03 user index
        let value = try UserControlPoint.decode(hex("20 01 01 03"))
        #expect(value.opCode == .responseCode)
        #expect(value.requestOpCode == .registerNewUser)
        #expect(value.result == .success)
        #expect(value.userIndex == 3)
        #expect(value.fields["result"] == .string("success"))
    }

    @Test func consentRequestAndRefusal() throws {
        // 02 consent | 03 user index | d2 04 consent code 1234
        let request = try UserControlPoint.decode(hex("02 03 d2 04"))
        #expect(request.opCode == .consent)
        #expect(request.userIndex == 3)
        #expect(request.consentCode == 1234)
        #expect(request.fields["consentCode"] == .string("(given)"), "the code is not logged")
        // 20 | 02 consent | 05 user not authorized
        let refused = try UserControlPoint.decode(hex("20 02 05"))
        #expect(refused.result == .userNotAuthorized)
        #expect(refused.userIndex == nil)
    }

    @Test("every truncated prefix throws", arguments: [hex("20 01 01"), hex("02 03 d2 04"), hex("01 d2 04")])
    func truncation(payload: [UInt8]) {
        for length in 0..<payload.count where !(payload.first == 0x20 && length == 3) {
            #expect(throws: GATTDecodingError.self) { try UserControlPoint.decode(Array(payload.prefix(length))) }
        }
    }
}
