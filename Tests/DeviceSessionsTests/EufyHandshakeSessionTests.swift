import BridgeCore
import BridgeFoundation
import DeviceSessions
import Foundation
import GATTDecoding
import Testing

/// The Eufy P2 handshake inside a ``SessionMachine``, against frames computed independently (Python's
/// `cryptography`: AES-128-CBC under MD5("CFE6031D09F7"), IV 16 ASCII '0') for ble-scale-sync's test values
/// (address CF:E6:03:1D:09:F7, client id "abcdef123456789", scale id "DEVICEUUID12345").
@Suite struct EufyHandshakeSessionTests {
    static let utc = TimeZone(identifier: "UTC")!
    static let now = Date(timeIntervalSince1970: 1_795_519_815)
    static let address = "CF:E6:03:1D:09:F7"
    static let step = EufyHandshake(write: BluetoothUUID(0xFFF1), answers: BluetoothUUID(0xFFF4), timeout: 10, gap: 1)
    static let c0 = [
        "C0 02 00 18 61 49 67 57 74 36 75 6C 53 5A 46 6B 67 6A 57 E7",
        "C0 02 01 18 59 4C 50 57 46 36 41 3D 3D F8",
    ]
    static let c1 = [
        "C1 02 00 18 49 64 51 2B 7A 2B 4C 6A 78 70 72 71 43 2F 66 FA",
        "C1 02 01 18 37 47 4F 61 39 51 51 3D 3D BD",
    ]
    static let c2 = [
        "C2 03 00 2C 32 35 67 4F 4D 31 52 63 62 7A 62 33 7A 63 54 8B",
        "C2 03 01 2C 54 46 34 64 6F 55 59 6B 52 4A 6A 71 75 68 2F 97",
        "C2 03 02 2C 45 6A 65 62 4B 54 2B 72 2F 4B 66 47 59 3D A0",
    ]

    /// Drives a machine: acknowledges every write, fires every gap timer, hands it the scale's answers.
    struct Driver {
        var machine: SessionMachine
        var written: [[UInt8]] = []
        var waitTimers: [Double] = []
        var finished = false
        var failure: String?

        init(address: String? = EufyHandshakeSessionTests.address) {
            machine = SessionMachine(
                script: SessionScript(steps: [.eufyHandshake(EufyHandshakeSessionTests.step)]),
                timeZone: EufyHandshakeSessionTests.utc,
                device: address,
                nonce: "abcdef123456789-0000-4000-8000-000000000000"
            )
        }

        mutating func run(_ actions: [SessionAction]) {
            var queue = actions
            while !queue.isEmpty {
                let action = queue.removeFirst()
                switch action {
                case .write(let id, _, let bytes, _):
                    written.append(bytes)
                    queue += machine.handle(.completed(action: id), now: EufyHandshakeSessionTests.now)
                case .startTimer(let id, let seconds) where seconds == EufyHandshakeSessionTests.step.gap:
                    queue += machine.handle(.timer(id), now: EufyHandshakeSessionTests.now)
                case .startTimer(_, let seconds):
                    waitTimers.append(seconds)
                case .finished:
                    finished = true
                case .failed(let reason):
                    failure = reason
                default:
                    break
                }
            }
        }

        mutating func start() { run(machine.start(now: EufyHandshakeSessionTests.now)) }

        mutating func answer(_ frames: [String]) throws {
            for frame in frames {
                let value = CharacteristicValue(
                    characteristic: BluetoothUUID(0xFFF4),
                    bytes: try Hex.bytes(frame),
                    delivery: .notification
                )
                run(machine.handle(.value(value), now: EufyHandshakeSessionTests.now))
            }
        }
    }

    @Test func writesC0ThenC2FromTheScalesIdAndFinishesOnASuccessfulC3() throws {
        var driver = Driver()
        driver.start()
        #expect(driver.written == (try Self.c0.map { try Hex.bytes($0) }))
        #expect(driver.waitTimers == [10], "then it waits for C1")
        try driver.answer(Self.c1)
        #expect(driver.written.suffix(3) == (try Self.c2.map { try Hex.bytes($0) })[...])
        #expect(!driver.finished)
        try driver.answer(["C3 01 00 01 00 C3"])
        #expect(driver.finished)
        #expect(driver.failure == nil)
        #expect(driver.machine.status == .finished)
    }

    @Test func aC1UnderAnotherKeyFailsAndNothingMoreIsWritten() throws {
        var driver = Driver(address: "11:22:33:44:55:66")
        driver.start()
        let before = driver.written.count
        try driver.answer(Self.c1)
        #expect(
            driver.failure
                == "eufy handshake: the scale's C1 does not decrypt with the key derived from its address "
                + "(a wrong key, or a changed frame)"
        )
        #expect(driver.written.count == before, "no C2")
    }

    @Test(arguments: [
        (
            ["C1 02 00 18 49 64 51 2B 7A 2B 4C 6A 78 70 72 71 43 2F 66 FB"],
            "C1 segment 0: XOR checksum is FB, computed FA"
        ),
        (["C1 02 01 18 37 47 4F 61 39 51 51 3D 3D BD"], "C1 segment 1 arrived where segment 0 was expected"),
        (
            ["C1 01 00 19 49 64 51 2B 7A 2B 4C 6A 78 70 72 71 43 2F 66 F8"],
            "the C1 segments carry 15 bytes where their header says 25"
        ),
        (["C1 00"], "a C1 segment of 2 bytes is shorter than its header and checksum"),
    ])
    func aBadC1SegmentFailsWithWhatWasWrong(frames: [String], reason: String) throws {
        var driver = Driver()
        driver.start()
        try driver.answer(frames)
        #expect(driver.failure == "eufy handshake: " + reason)
    }

    @Test func aRefusingC3OrABadC3ChecksumFails() throws {
        var refused = Driver()
        refused.start()
        try refused.answer(Self.c1 + ["C3 01 00 01 01 C2"])
        #expect(refused.failure == "eufy handshake: the scale refused the handshake (C3 status 01)")

        var corrupt = Driver()
        corrupt.start()
        try corrupt.answer(Self.c1 + ["C3 01 00 01 00 C4"])
        #expect(corrupt.failure == "eufy handshake: C3 segment 0: XOR checksum is C4, computed C3")
    }

    @Test func noAnswerTimesOutAndNoAddressFailsAtOnce() throws {
        var silent = Driver()
        silent.start()
        let timer = try #require(
            silent.machine.handle(.completed(action: 999), now: Self.now).isEmpty ? silent.waitTimers.first : nil
        )
        #expect(timer == 10)
        // The C1 wait's timer id is the last id handed out: the gap timer's plus the last write's.
        var actions: [SessionAction] = []
        for id in 1...10 { actions += silent.machine.handle(.timer(id), now: Self.now) }
        #expect(actions.contains(.failed(reason: "eufy handshake: no C1 from the scale within 10 s")))

        var anonymous = Driver(address: nil)
        anonymous.start()
        #expect(
            anonymous.failure
                == "eufy handshake: the handshake key is derived from the scale's address, and the session has none"
        )
        #expect(anonymous.written.isEmpty)
    }
}
