import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import SessionReplay
import TestSupport
import Testing

/// Captures built from the HCI, L2CAP and ATT layouts, imported as recordings.
@Suite struct BTSnoopImporterTests {
    static let scale = BTSnoopWeighInCapture.scale
    static let scaleAddress = BTSnoopWeighInCapture.scaleAddress
    static let start = BTSnoopWeighInCapture.start
    static let weighIn = BTSnoopWeighInCapture.weighIn
    static let acme = BTSnoopWeighInCapture.acme

    static func weighInSession(_ format: BTSnoopCaptureBuilder.Format, discovery: Bool = true) -> BTSnoopWeighInCapture
    {
        BTSnoopWeighInCapture(format: format, discovery: discovery)
    }

    func importing(_ bytes: [UInt8], options: BTSnoopImporter.Options = .init()) throws -> BTSnoopImporter.Result {
        BTSnoopImporter(options: options).importCapture(try BTSnoopFile(bytes: bytes))
    }

    @Test(arguments: [BTSnoopCaptureBuilder.Format.h4, .monitor(controller: 1)])
    func weighInBecomesTheEventsARecordingHolds(format: BTSnoopCaptureBuilder.Format) throws {
        let session = Self.weighInSession(format)
        let result = try importing(session.bytes)
        let kinds = result.events.map(\.kind)
        #expect(result.events.allSatisfy { $0.device == Self.scaleAddress })
        try #require(kinds.count == 7, "\(kinds)")
        var advertised = Advertisement(name: "WS-100", rssi: -61, serviceUUIDs: [BluetoothUUID(0x181D)])
        #expect(kinds[0] == .advertisement(advertised))
        advertised.rssi = -62
        advertised.manufacturerData = [0x020E: [0xAA, 0xBB]]
        #expect(kinds[1] == .advertisement(advertised))
        #expect(kinds[2] == .connected)
        #expect(
            kinds[3]
                == .servicesDiscovered([
                    BluetoothUUID(0x1800): [],
                    BluetoothUUID(0x181D): [BluetoothUUID(0x2A9D), BluetoothUUID(0x2A9E)],
                    BluetoothUUID(0x180A): [BluetoothUUID(0x2A29), BluetoothUUID(0x2A24)],
                ])
        )
        #expect(
            kinds[4]
                == .value(
                    CharacteristicValue(characteristic: .manufacturerNameString, bytes: Self.acme, delivery: .read)
                )
        )
        #expect(
            kinds[5]
                == .value(
                    CharacteristicValue(
                        characteristic: BluetoothUUID(0x2A9D),
                        bytes: Self.weighIn,
                        delivery: .indication
                    )
                )
        )
        #expect(kinds[6] == .disconnected(reason: "remote"))
        // Times are the capture's, to the microsecond: the read when its response came, the indication when its
        // last fragment did.
        #expect(abs(result.events[4].time.timeIntervalSince(session.readTime)) < 0.000_01)
        #expect(abs(result.events[5].time.timeIntervalSince(session.indicationTime)) < 0.000_01)
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        #expect(result.statistics.indications == 1 && result.statistics.reads == 1 && result.statistics.writes == 0)
        #expect(result.statistics.connections == 1 && result.statistics.advertisements == 2)
    }

    @Test func valuesOnHandlesWithoutDiscoveryAreLeftOutWithAWarningNamingThem() throws {
        let bytes = Self.weighInSession(.h4, discovery: false).bytes
        let result = try importing(bytes)
        #expect(!result.events.contains { if case .value = $0.kind { true } else { false } })
        #expect(result.statistics.unmappedValues == 3)  // the CCCD write, the read, the indication
        let warning = try #require(result.warnings.first { $0.contains("0x0012") })
        #expect(warning.contains(Self.scaleAddress) && warning.contains("0x0022") && warning.contains("--handle"))
    }

    @Test func handlesNamedByTheUserStandInForMissingDiscovery() throws {
        let bytes = Self.weighInSession(.h4, discovery: false).bytes
        let result = try importing(bytes, options: .init(handles: [0x0012: BluetoothUUID(0x2A9D)]))
        let values = result.events.compactMap { if case .value(let value) = $0.kind { value } else { nil } }
        #expect(
            values == [
                CharacteristicValue(characteristic: BluetoothUUID(0x2A9D), bytes: Self.weighIn, delivery: .indication)
            ]
        )
        // The CCCD write (00 02 to the handle after a known value) is a subscription, not a write.
        #expect(result.statistics.writes == 0)
        #expect(
            result.warnings.contains { $0.contains("0x0022") } && !result.warnings.contains { $0.contains("0x0012") }
        )
    }

    @Test func namedHandlesGiveTheRecordingAServicesLineWithTheirSIGService() throws {
        let bytes = Self.weighInSession(.h4, discovery: false).bytes
        let result = try importing(bytes, options: .init(handles: [0x0012: BluetoothUUID(0x2A9D)]))
        let services = result.events.compactMap {
            if case .servicesDiscovered(let table) = $0.kind { table } else { nil }
        }
        #expect(services == [[BluetoothUUID(0x181D): [BluetoothUUID(0x2A9D)]]])
        // Before the first value, so that the profile has claimed the device when the value arrives.
        let first = try #require(result.events.firstIndex { if case .value = $0.kind { true } else { false } })
        let line = try #require(
            result.events.firstIndex { if case .servicesDiscovered = $0.kind { true } else { false } }
        )
        #expect(line < first)
    }

    @Test func aSharedControlPointTakesTheServiceOfTheMeasurementNamedBesideIt() {
        let glucose = BTSnoopImporter.Options(handles: [
            0x0025: BluetoothUUID(0x2A18), 0x002D: .recordAccessControlPoint,
        ])
        #expect(glucose.handleServices[0x002D] == BluetoothUUID(0x1808))
        #expect(glucose.handlesWithoutService.isEmpty)
        let alone = BTSnoopImporter.Options(handles: [0x002D: .recordAccessControlPoint])
        #expect(alone.handlesWithoutService == [0x002D])
        let vendor = BluetoothUUID("0000FFF4-0000-1000-8000-00805F9B34FB")!
        let named = BTSnoopImporter.Options(
            handles: [0x0030: vendor, 0x0033: .recordAccessControlPoint],
            handleServices: [0x0030: BluetoothUUID(0xFFF0), 0x0033: BluetoothUUID(0x1822)]
        )
        #expect(named.handleServices == [0x0030: BluetoothUUID(0xFFF0), 0x0033: BluetoothUUID(0x1822)])
    }

    @Test func writesKeepWhetherTheyAskedForAResponse() throws {
        var capture = BTSnoopCaptureBuilder(format: .h4, start: Self.start)
        capture.connectionComplete(address: Self.scale)
        capture.att([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], received: false)
        capture.att([0x11, 0x06, 0x01, 0x00, 0x10, 0x00, 0x08, 0x18], received: true)  // 1808 glucose
        capture.att([0x08, 0x01, 0x00, 0x10, 0x00, 0x03, 0x28], received: false)
        // decl 0x0002 notify value 0x0003 2A18; decl 0x0005 write+indicate value 0x0006 2A52 (RACP)
        capture.att(
            [0x09, 0x07, 0x02, 0x00, 0x10, 0x03, 0x00, 0x18, 0x2A, 0x05, 0x00, 0x28, 0x06, 0x00, 0x52, 0x2A],
            received: true
        )
        capture.att([0x12, 0x06, 0x00, 0x01, 0x01], received: false)  // Write Request RACP: report all records
        capture.att([0x13], received: true)
        capture.att([0x52, 0x06, 0x00, 0x04, 0x01], received: false)  // Write Command: number of records
        let result = try importing(capture.bytes)
        let writes = result.events.compactMap { if case .written(let write) = $0.kind { write } else { nil } }
        #expect(
            writes == [
                CharacteristicWrite(characteristic: BluetoothUUID(0x2A52), bytes: [0x01, 0x01], withResponse: true),
                CharacteristicWrite(characteristic: BluetoothUUID(0x2A52), bytes: [0x04, 0x01], withResponse: false),
            ]
        )
    }

    /// As two BlueZ stacks talk (seen in a btmon capture against the real bluetoothd 5.66): the host writes Client
    /// Supported Features and reads Device Name itself, the peer sends Multiple Handle Value Notifications, and the
    /// host hangs up with Disconnect while the controller echoes reason 0x13.
    @Test func stackTrafficIsLeftOutMultipleNotificationsAreSplitAndAHostHangUpIsLocal() throws {
        var capture = BTSnoopCaptureBuilder(format: .monitor(controller: 0), start: Self.start)
        capture.connectionComplete(handle: 0x002A, address: Self.scale)
        capture.att([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], handle: 0x002A, received: false)
        // 0x0001–0x0007 1800, 0x0008–0x000F 1801, 0x0010–0x001F 180D
        capture.att(
            [0x11, 0x06, 0x01, 0x00, 0x07, 0x00, 0x00, 0x18, 0x08, 0x00, 0x0F, 0x00, 0x01, 0x18]
                + [0x10, 0x00, 0x1F, 0x00, 0x0D, 0x18],
            handle: 0x002A,
            received: true
        )
        capture.att([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28], handle: 0x002A, received: false)
        // 0x0003 2A00 (GAP), 0x000D 2B29 (GATT), 0x0017 2A37 (Heart Rate Measurement)
        capture.att(
            [0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x00, 0x2A, 0x0C, 0x00, 0x0A, 0x0D, 0x00, 0x29, 0x2B]
                + [0x16, 0x00, 0x10, 0x17, 0x00, 0x37, 0x2A],
            handle: 0x002A,
            received: true
        )
        capture.att([0x12, 0x0D, 0x00, 0x05], handle: 0x002A, received: false)  // Client Supported Features
        capture.att([0x13], handle: 0x002A, received: true)
        capture.att([0x0A, 0x03, 0x00], handle: 0x002A, received: false)  // Device Name
        capture.att([0x0B] + Array("CB".utf8), handle: 0x002A, received: true)
        // Multiple Handle Value Notification: 0x0017 len 4 "10 3c bc 02", 0x0017 len 2 "00 3d"
        capture.att(
            [0x23, 0x17, 0x00, 0x04, 0x00, 0x10, 0x3C, 0xBC, 0x02, 0x17, 0x00, 0x02, 0x00, 0x00, 0x3D],
            handle: 0x002A,
            received: true
        )
        capture.command(0x0406, [0x2A, 0x00, 0x13])  // Disconnect, remote user terminated
        capture.disconnectionComplete(handle: 0x002A, reason: 0x13)
        let result = try importing(capture.bytes)
        let values = result.events.compactMap { if case .value(let value) = $0.kind { value } else { nil } }
        #expect(
            values == [
                CharacteristicValue(
                    characteristic: BluetoothUUID(0x2A37),
                    bytes: [0x10, 0x3C, 0xBC, 0x02],
                    delivery: .notification
                ),
                CharacteristicValue(
                    characteristic: BluetoothUUID(0x2A37),
                    bytes: [0x00, 0x3D],
                    delivery: .notification
                ),
            ]
        )
        #expect(!result.events.contains { if case .written = $0.kind { true } else { false } })
        #expect(result.statistics.stackValues == 2)
        #expect(result.events.last?.kind == .disconnected(reason: "local"))
    }

    @Test func aDeviceFilterKeepsOnlyThatDevice() throws {
        var capture = BTSnoopCaptureBuilder(format: .h4, start: Self.start)
        capture.advertisingReport(type: 0x00, address: [1, 2, 3, 4, 5, 6], data: [0x03, 0x03, 0x0D, 0x18], rssi: -70)
        capture.advertisingReport(type: 0x00, address: Self.scale, data: [0x03, 0x03, 0x1D, 0x18], rssi: -50)
        let result = try importing(capture.bytes, options: .init(devices: ["c8:47:8c:00:12:34"]))
        #expect(result.events.map(\.device) == [Self.scaleAddress])
    }

    @Test func dataBeforeItsConnectionEventIsAttributedToAPlaceholderWithAWarning() throws {
        var capture = BTSnoopCaptureBuilder(format: .h4, start: Self.start)
        capture.att([0x1B, 0x12, 0x00, 0x00, 0x48], handle: 0x0041, received: true)
        let result = try importing(capture.bytes, options: .init(handles: [0x0012: BluetoothUUID(0x2A37)]))
        // The named handle's service first (so that a profile can claim the device), then the value.
        #expect(result.events.map(\.device) == ["00:00:00:00:00:41", "00:00:00:00:00:41"])
        #expect(result.events.first?.kind == .servicesDiscovered([.heartRateService: [.heartRateMeasurement]]))
        #expect(result.warnings.contains { $0.contains("0x0041") && $0.contains("00:00:00:00:00:41") })
    }

    @Test func anExtendedAdvertisingReportIsReadLikeALegacyOne() throws {
        var capture = BTSnoopCaptureBuilder(format: .h4, start: Self.start)
        let data: [UInt8] = [0x03, 0x03, 0x1B, 0x18, 0x05, 0x16, 0x1B, 0x18, 0x02, 0x24]  // 181B + service data
        // subevent 0x0D, one report: event type 0x0013 (legacy ADV_IND), public address, PHYs, SID, TX power,
        // RSSI -55, no periodic interval, no direct address, data
        capture.event(
            0x3E,
            [0x0D, 0x01, 0x13, 0x00, 0x00] + Self.scale.reversed() + [0x01, 0x00, 0xFF, 0x7F, 0xC9, 0x00, 0x00, 0x00]
                + [0, 0, 0, 0, 0, 0, UInt8(data.count)] + data
        )
        let result = try importing(capture.bytes)
        var expected = Advertisement(rssi: -55, serviceUUIDs: [BluetoothUUID(0x181B)])
        expected.serviceData = [BluetoothUUID(0x181B): [0x02, 0x24]]
        #expect(result.events.map(\.kind) == [.advertisement(expected)])
    }
}

@Suite struct BTSnoopFileTests {
    @Test func timestampsCountMicrosecondsFromYearZero() throws {
        var capture = BTSnoopCaptureBuilder(format: .h4, start: BTSnoopImporterTests.start)
        capture.record([0x04, 0x0E, 0x00], flags: 3, after: 0.25)
        let file = try BTSnoopFile(bytes: capture.bytes)
        #expect(file.datalink == .hciUART)
        #expect(file.records.count == 1)
        #expect(file.records[0].time == BTSnoopImporterTests.start.addingTimeInterval(0.25))
    }

    /// A capture time outside 1900…9999 (an unset clock, a corrupt stamp) is refused with the record's position,
    /// not clamped into the range: a clamped time would put the capture's readings on another day.
    @Test(arguments: [-2_300_000_000.0, -60_000_000_000, 253_402_300_800, 300_000_000_000])
    func aCaptureTimeOutsideTheSupportedYearsIsRefusedNotClamped(secondsFrom1970: Double) {
        var capture = BTSnoopCaptureBuilder(format: .h4, start: BTSnoopImporterTests.start)
        capture.record([0x04, 0x0E, 0x00], flags: 3, after: 0.25)
        capture.record(
            [0x04, 0x0E, 0x00],
            flags: 3,
            after: secondsFrom1970 - BTSnoopImporterTests.start.timeIntervalSince1970
        )
        #expect {
            try BTSnoopFile(bytes: capture.bytes)
        } throws: { error in
            guard let error = error as? BTSnoopError else { return false }
            return error.code == .timeOutOfRange && error.message.contains("record 2 has timestamp")
                && error.message.contains("outside 1900-01-01 through 9999-12-31") && error.offset == 16 + 27 + 16
        }
    }

    @Test func aFileThatIsNotACaptureSaysWhatItStartsWith() {
        let bytes = Array("{\"format\": \"carebridge-recording\"}".utf8)
        #expect {
            try BTSnoopFile(bytes: bytes)
        } throws: { error in
            guard let error = error as? BTSnoopError else { return false }
            return error.code == .notBTSnoop && error.message.contains("{\"format")
        }
    }

    @Test func anUnsupportedDatalinkNamesTheSupportedOnes() {
        let bytes = Array("btsnoop".utf8) + [0] + BTSnoopCaptureBuilder.be32(1) + BTSnoopCaptureBuilder.be32(1003)
        #expect {
            try BTSnoopFile(bytes: bytes)
        } throws: { error in
            guard let error = error as? BTSnoopError else { return false }
            return error.code == .unsupportedDatalink && error.message.contains("1003")
                && error.message.contains("1002") && error.message.contains("2001")
        }
    }

    @Test func aCaptureCutInsideItsLastRecordKeepsTheRecordsBefore() throws {
        let full = BTSnoopImporterTests.weighInSession(.h4).bytes
        let complete = try BTSnoopFile(bytes: full)
        let cut = try BTSnoopFile(bytes: Array(full.dropLast(3)))
        #expect(cut.records.count == complete.records.count - 1)
        #expect(cut.truncatedTail?.code == .truncated)
        let result = BTSnoopImporter().importCapture(cut)
        #expect(result.warnings.contains { $0.contains("ends inside a record") })
        // The disconnection was in the lost record; the measurement before it is kept.
        #expect(result.statistics.indications == 1)
    }

    @Test func everyPrefixOfACaptureParsesOrThrowsWithoutCrashing() {
        let full = BTSnoopImporterTests.weighInSession(.monitor(controller: 0)).bytes
        for length in 0...full.count {
            if let file = try? BTSnoopFile(bytes: Array(full.prefix(length))) {
                _ = BTSnoopImporter().importCapture(file)
            }
        }
    }
}
