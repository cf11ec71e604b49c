import BridgeCore
import BridgeFoundation
import DeviceProfiles
import DeviceSessions
import Foundation
import GATTDecoding
import Testing

/// The shipped `glucose-meter` profile's session against a simulated RACP meter: what it writes on first
/// contact, on later contacts, after the meter reset its sequence numbers, and that it never deletes.
@Suite struct GlucoseSessionTests {
    static let profile: DeviceProfile = {
        let loaded = DeviceProfileLoader.load(directories: [ProfileCatalogueTests.devices])
        return loaded.catalog.profiles.first { $0.id == "glucose-meter" }!
    }()

    static let racp = BluetoothUUID(0x2A52)
    static let measurement = BluetoothUUID(0x2A18)

    /// A Glucose Service meter's Record Access Control Point, as the spec describes it (read-only part).
    struct Meter {
        var sequences: [Int]
        var written: [[UInt8]] = []

        func record(_ sequence: Int) -> CharacteristicValue {
            // flags 0 | sequence | 2026-11-20 08:00:00 | no concentration
            let bytes: [UInt8] = [0x00, UInt8(sequence & 0xFF), UInt8(sequence >> 8), 0xEA, 0x07, 11, 20, 8, 0, 0]
            return CharacteristicValue(
                characteristic: GlucoseSessionTests.measurement,
                bytes: bytes,
                delivery: .notification
            )
        }

        func response(_ op: UInt8, _ value: UInt8) -> CharacteristicValue {
            CharacteristicValue(
                characteristic: GlucoseSessionTests.racp,
                bytes: [0x06, 0x00, op, value],
                delivery: .indication
            )
        }

        mutating func answer(_ request: [UInt8]) -> [CharacteristicValue] {
            written.append(request)
            func selected() -> [Int]? {
                switch Array(request.dropFirst()) {
                case [0x01]: return sequences
                case [0x06]: return sequences.max().map { [$0] } ?? []
                case let filter where filter.count == 4 && filter[0] == 0x03 && filter[1] == 0x01:
                    return sequences.filter { $0 >= Int(filter[2]) | Int(filter[3]) << 8 }
                default: return nil
                }
            }
            guard let op = request.first else { return [] }
            guard let records = selected() else { return [response(op, 0x04)] }
            switch op {
            case 0x01:
                return records.isEmpty ? [response(op, 0x06)] : records.map(record) + [response(op, 0x01)]
            case 0x04:
                let count = records.count
                return [
                    CharacteristicValue(
                        characteristic: GlucoseSessionTests.racp,
                        bytes: [0x05, 0x00, UInt8(count & 0xFF), UInt8(count >> 8)],
                        delivery: .indication
                    )
                ]
            default:
                return [response(op, 0x02)]
            }
        }
    }

    /// Runs the profile's session against `meter`; returns the final status, the records it delivered and the
    /// downloads the machine told of.
    static func run(
        _ meter: inout Meter,
        variables: SessionVariables
    ) -> (
        status: SessionMachine.Status, persisted: [String: SessionValue?], records: [Int], progress: [[Int]],
        downloads: [RecordDownload]
    ) {
        var machine = SessionMachine(
            script: profile.session,
            variables: variables,
            timeZone: TimeZone(identifier: "UTC")!
        )
        let now = Date(timeIntervalSince1970: 1_795_519_815)
        var queue = machine.start(now: now)
        var persisted: [String: SessionValue?] = [:]
        var records: [Int] = []
        var timers: [Int] = []
        var progress: [[Int]] = []
        var downloads: [RecordDownload] = []
        while !queue.isEmpty || machine.status == .running {
            guard !queue.isEmpty else {
                guard let timer = timers.first else { break }
                timers.removeFirst()
                queue = machine.handle(.timer(timer), now: now)
                continue
            }
            let action = queue.removeFirst()
            switch action {
            case .write(let id, _, let bytes, _):
                var next = machine.handle(.completed(action: id), now: now)
                for value in meter.answer(bytes) {
                    if value.characteristic == measurement {
                        records.append(Int(value.bytes[1]) | Int(value.bytes[2]) << 8)
                    }
                    next += machine.handle(.value(value), now: now)
                }
                queue += next
            case .read(let id, _), .subscribe(let id, _), .readDescriptors(let id, _, _):
                queue += machine.handle(.completed(action: id), now: now)
            case .startTimer(let id, _):
                timers.append(id)
            case .finished(let persist):
                persisted = persist
            case .failed:
                break
            case .progress(let done, let total):
                progress.append([done, total])
            case .download(let download):
                downloads.append(download)
            }
        }
        return (machine.status, persisted, records, progress, downloads)
    }

    @Test func firstContactCountsThenDownloadsEverything() {
        var meter = Meter(sequences: [1, 2, 3])
        let result = Self.run(&meter, variables: [:])
        #expect(result.status == .finished)
        #expect(meter.written == [[0x04, 0x01], [0x01, 0x01]])
        #expect(result.records == [1, 2, 3])
        #expect(result.persisted == ["lastSequence": .integer(3)])
        #expect(result.progress == [[1, 3], [2, 3], [3, 3]], "counted against the number-of-records response")
        #expect(result.downloads == [.started, .ended], "one download: `01 01` up to its `06` response")
    }

    @Test func laterContactAsksOnlyForRecordsAfterTheCursor() {
        var meter = Meter(sequences: [1, 2, 3, 4, 5])
        let result = Self.run(&meter, variables: ["lastSequence": .integer(3)])
        // report last record (the probe), number of records >= 4, records >= 4
        #expect(meter.written == [[0x01, 0x06], [0x04, 0x03, 0x01, 0x04, 0x00], [0x01, 0x03, 0x01, 0x04, 0x00]])
        #expect(result.records == [5, 4, 5], "the probe's record 5 again, then 4 and 5 (the store drops the repeat)")
        #expect(result.persisted == ["lastSequence": .integer(5)])
        #expect(result.progress == [[1, 2], [2, 2]], "the probe's record is not counted: no total yet")
        #expect(result.downloads == [.started, .ended, .started, .ended], "the `01 06` probe, then `01 03 01`")
    }

    @Test func nothingNewKeepsTheCursor() {
        var meter = Meter(sequences: [1, 2, 3])
        let result = Self.run(&meter, variables: ["lastSequence": .integer(3)])
        #expect(result.status == .finished)
        #expect(meter.written.last == [0x01, 0x03, 0x01, 0x04, 0x00])
        #expect(result.persisted == ["lastSequence": .integer(3)])
    }

    @Test func sequenceResetIsDetectedAndEverythingIsDownloadedAgain() {
        var meter = Meter(sequences: [1, 2])  // new battery: numbering restarted
        let result = Self.run(&meter, variables: ["lastSequence": .integer(40)])
        #expect(meter.written == [[0x01, 0x06], [0x04, 0x01], [0x01, 0x01]])
        #expect(result.records == [2, 1, 2])
        #expect(result.persisted == ["lastSequence": .integer(2)])
    }

    @Test func emptiedMeterResetsTheCursor() {
        var meter = Meter(sequences: [])
        let result = Self.run(&meter, variables: ["lastSequence": .integer(9)])
        #expect(result.status == .finished)
        #expect(meter.written == [[0x01, 0x06], [0x04, 0x01], [0x01, 0x01]])
        #expect(result.persisted == ["lastSequence": SessionValue?.none])
    }

    @Test func theSessionNeverDeletesRecords() {
        #expect(!Self.profile.session.isEmpty)
        for sequences in [[], [1], [1, 2, 3]] {
            for cursor in [nil, 1, 3, 50] as [Int?] {
                var meter = Meter(sequences: sequences)
                _ = Self.run(&meter, variables: cursor.map { ["lastSequence": .integer($0)] } ?? [:])
                #expect(!meter.written.contains { $0.first == 0x02 }, "RACP op 02 deletes stored records")
            }
        }
    }
}

@Suite struct SessionProfileParsingTests {
    static func profile(session: String) -> String {
        """
        {"id": "x", "name": "x", "match": {"serviceUUIDs": ["1808"]}, "link": "gatt",
         "characteristics": [{"uuid": "2A52", "use": "indicate", "decoder": "record-access-control-point",
                              "role": "controlPoint"}],
         "session": \(session)}
        """
    }

    @Test func everyStepKindIsRead() throws {
        let profile = try DeviceProfile(
            json: Self.profile(
                session: """
                    {"persist": ["n"], "steps": [
                      {"subscribe": "2A52"}, {"read": "2A52", "optional": true, "capture": {"n": "u8@0"}},
                      {"write": "2A52", "value": "01 {n:u16} {crc16}", "response": false},
                      {"await": "2A52", "match": "06 ??", "timeout": 5, "capture": {"m": "u16@2"}},
                      {"delay": 0.5},
                      {"repeat": [{"write": "2A52", "value": "00"}], "every": 2, "until": {"characteristic": "2A52"}},
                      {"if": "n < 3", "then": [{"set": {"n": 3, "o": "m", "p": null}}], "else": []}
                    ]}
                    """
            )
        )
        #expect(profile.session.steps.count == 7)
        #expect(profile.session.persist == ["n"])
        #expect(profile.connectionPlan.session == profile.session)
        guard case .write(let write) = profile.session.steps[2] else {
            Issue.record("step 2 is a write")
            return
        }
        #expect(!write.withResponse)
    }

    @Test(
        "bad sessions name the field",
        arguments: [
            (#"{"steps": [{"write": "2A52"}]}"#, "session.steps[0].value"),
            (#"{"steps": [{"write": "2A52", "value": "{x"}]}"#, "session.steps[0].value"),
            (#"{"steps": [{"read": "2A2B"}]}"#, "session.steps[0]"),
            (#"{"steps": [{"await": "2A52", "wait": 3}]}"#, "session.steps[0].wait"),
            (#"{"steps": [{"delay": 1, "write": "2A52"}]}"#, "session.steps[0]"),
            (#"{"steps": [{"if": "a <", "then": []}]}"#, "session.steps[0].if"),
            (#"{"steps": [], "persist": ["1x"]}"#, "session.persist[0]"),
            (
                #"{"steps": [], "captures": [{"characteristic": "2A52", "variable": "v", "at": "u16"}]}"#,
                "session.captures[0].at"
            ),
            (
                #"{"steps": [], "captures": [{"characteristic": "2A52", "variable": "v", "at": "u8@1", "when": {"prefix": "0G"}}]}"#,
                "session.captures[0].when.prefix"
            ),
            (
                #"{"steps": [], "progress": {"total": "n", "count": "2A52", "when": {"first": "01"}}}"#,
                "session.progress.when.first"
            ),
        ]
    )
    func badSessions(session: String, field: String) {
        do {
            _ = try DeviceProfile(json: Self.profile(session: session))
            Issue.record("accepted \(session)")
        } catch {
            #expect(error.field.hasPrefix(field), "\(error)")
        }
    }
}
