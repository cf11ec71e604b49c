import BridgeCore
import BridgeFoundation
import DeviceProfiles
import DeviceSessions
import Foundation
import GATTDecoding
import Logging
import SampleIngest
import TestSupport
import Testing

/// The pipeline fed event by event: time handling, broadcast collapse, multi-packet merge, identity, bad events.
@Suite struct IngestPipelineTests {
    static let zone = TimeZone(identifier: "Europe/Berlin")!
    /// 2026-11-20T08:00:00+01:00
    static let start = Date(timeIntervalSince1970: 1_795_158_000)
    static let catalog = DeviceProfileLoader.load(directories: [PackageRoot.devices]).catalog
    static let device = "02:00:00:00:00:0A"

    struct Run {
        var pipeline = IngestPipeline(
            catalog: IngestPipelineTests.catalog,
            configuration: PipelineConfiguration(timeZone: IngestPipelineTests.zone),
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        var samples: [QuantitySample] = []
        var issues: [PipelineIssue] = []

        mutating func send(_ t: Double, _ kind: TransportEvent.Kind, device: String = IngestPipelineTests.device) {
            pipeline.ingest(
                TransportEvent(time: IngestPipelineTests.start.addingTimeInterval(t), device: device, kind: kind),
                samples: &samples,
                issues: &issues
            )
        }

        mutating func value(
            _ t: Double,
            _ characteristic: BluetoothUUID,
            _ bytes: [UInt8],
            _ delivery: CharacteristicValue.Delivery = .indication
        ) {
            send(t, .value(CharacteristicValue(characteristic: characteristic, bytes: bytes, delivery: delivery)))
        }

        /// When the next `advertise` is sent, in seconds from the start.
        var clock = 0.0

        /// Sends an advertisement at `clock`, then moves it on by 0.3 s (a broadcast device's advertising rate).
        mutating func advertise(_ advertisement: Advertisement) {
            send(clock, .advertisement(advertisement))
            clock += 0.3
        }

        mutating func finish() {
            pipeline.finish(samples: &samples, issues: &issues)
        }
    }

    static func dateTime(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int) -> [UInt8] {
        [UInt8(year & 0xFF), UInt8(year >> 8), UInt8(month), UInt8(day), UInt8(hour), UInt8(minute), UInt8(second)]
    }

    /// Weight Measurement, SI, with time stamp: 72.5 kg.
    static func weight(at time: [UInt8], raw: UInt16 = 14500) -> [UInt8] {
        [0x02, UInt8(raw & 0xFF), UInt8(raw >> 8)] + time
    }

    static func connectedScale(_ run: inout Run) {
        run.send(0, .advertisement(Advertisement(name: "Scale", serviceUUIDs: [.weightScaleService])))
        run.send(1, .connected)
    }

    @Test func deviceTimeIsKeptWhenPlausible() throws {
        var run = Run()
        Self.connectedScale(&run)
        run.value(2, .weightMeasurement, Self.weight(at: Self.dateTime(2026, 11, 20, 7, 59, 30)))
        run.send(3, .disconnected(reason: "remote"))
        let sample = try #require(run.samples.first)
        #expect(sample.start == Self.start.addingTimeInterval(-30))
        #expect(sample.clockOffset == nil)
    }

    @Test func storedBurstFromPreviousDaysKeepsItsOwnTimes() {
        var run = Run()
        Self.connectedScale(&run)
        for day in 15...19 {
            run.value(
                2 + Double(day) / 100,
                .weightMeasurement,
                Self.weight(at: Self.dateTime(2026, 11, day, 7, 30, 0))
            )
        }
        #expect(run.samples.isEmpty, "timed samples wait for the end of the session")
        run.send(4, .disconnected(reason: "remote"))
        #expect(run.samples.count == 5)
        #expect(run.samples.allSatisfy { $0.clockOffset == nil })
        #expect(run.samples.map { Timestamp.format($0.start, in: Self.zone) }.first == "2026-11-15T07:30:00+01:00")
    }

    @Test func recordInTheFutureCorrectsTheWholeSession() throws {
        var run = Run()
        Self.connectedScale(&run)
        // The clock runs 1 day and 2 hours ahead: both records are shifted by the same estimated offset.
        run.value(2, .weightMeasurement, Self.weight(at: Self.dateTime(2026, 11, 20, 9, 0, 0), raw: 14600))
        run.value(2.2, .weightMeasurement, Self.weight(at: Self.dateTime(2026, 11, 21, 10, 0, 2)))
        run.send(3, .disconnected(reason: "remote"))
        #expect(run.samples.count == 2)
        let offset = -(86_400 + 2 * 3600.0) - 2 + 2.2
        #expect(run.samples.allSatisfy { $0.clockOffset == offset.rounded() })
        #expect(abs(run.samples[1].start.timeIntervalSince(Self.start.addingTimeInterval(2.2))) < 1)
        #expect(run.samples[0].deviceTime?.day == 20, "the device's own stamp is kept")
    }

    @Test func yearBefore2000IsCorrected() throws {
        var run = Run()
        Self.connectedScale(&run)
        run.value(2, .weightMeasurement, Self.weight(at: Self.dateTime(1970, 1, 1, 0, 5, 0)))
        run.send(3, .disconnected(reason: "remote"))
        let sample = try #require(run.samples.first)
        #expect(sample.clockOffset != nil)
        #expect(abs(sample.start.timeIntervalSince(Self.start.addingTimeInterval(2))) < 1)
    }

    @Test func liveMeasurementFarFromReceiveTimeIsCorrectedOnlyBeyondTheTolerance() throws {
        func thermometer(deviceHour: Int, deviceMinute: Int) -> QuantitySample? {
            var run = Run()
            run.send(0, .advertisement(Advertisement(serviceUUIDs: [.healthThermometerService])))
            run.send(1, .connected)
            run.value(2, .intermediateTemperature, [0x00, 0x6B, 0x01, 0x00, 0xFF], .notification)  // 36.3 °C
            #expect(run.samples.isEmpty, "intermediate values are never samples")
            // Final 36.5 °C with time stamp.
            run.value(
                5,
                .temperatureMeasurement,
                [0x02, 0x6D, 0x01, 0x00, 0xFF] + Self.dateTime(2026, 11, 20, deviceHour, deviceMinute, 5)
            )
            run.finish()
            return run.samples.first
        }
        let close = try #require(thermometer(deviceHour: 7, deviceMinute: 10))  // 50 min off: within 1 h
        #expect(close.clockOffset == nil)
        let far = try #require(thermometer(deviceHour: 5, deviceMinute: 0))  // 3 h behind
        #expect(far.clockOffset == 10_800)
        #expect(far.start == Self.start.addingTimeInterval(5))
        #expect(far.type == .bodyTemperature)
    }

    @Test func clockUnreliableQuirkUsesReceiveTime() throws {
        let profile = DeviceProfile(
            id: "cheap-scale",
            name: "Cheap scale",
            match: DeviceProfile.Match(namePattern: "CHEAP*", priority: 100),
            linkMode: .gatt,
            characteristics: [
                DeviceProfile.Characteristic(
                    uuid: .weightMeasurement,
                    use: .indicate,
                    reading: .measurement(WeightMeasurement.self)
                )
            ],
            quirks: DeviceProfile.Quirks(clockUnreliable: true)
        )
        var run = Run()
        run.pipeline = IngestPipeline(
            catalog: DeviceCatalog(profiles: Self.catalog.profiles + [profile]),
            configuration: PipelineConfiguration(timeZone: Self.zone),
            logger: Logger(label: "t") { _ in SwiftLogNoOpLogHandler() }
        )
        run.send(0, .advertisement(Advertisement(name: "CHEAP-1", serviceUUIDs: [.weightScaleService])))
        run.value(2, .weightMeasurement, Self.weight(at: Self.dateTime(2026, 11, 20, 7, 59, 30)))
        let sample = try #require(run.samples.first)
        #expect(sample.start == Self.start.addingTimeInterval(2))
        #expect(sample.source.device?.profile == "cheap-scale")
    }

    @Test func identityFromDeviceInformationIsOnEverySample() throws {
        var run = Run()
        run.send(0, .advertisement(Advertisement(name: "HRM", serviceUUIDs: [.heartRateService])))
        run.send(1, .connected)
        run.value(1.1, .manufacturerNameString, Array("Acme\0\0".utf8), .read)
        run.value(1.2, .modelNumberString, Array("HR-10 ".utf8), .read)
        run.value(1.3, .serialNumberString, Array("SN1".utf8), .read)
        run.value(1.4, .firmwareRevisionString, Array("1.0".utf8), .read)
        run.value(2, .heartRateMeasurement, [0x16, 72, 0x40, 0x03], .notification)
        #expect(run.samples.map(\.type) == [.heartRate, .rrInterval])
        for sample in run.samples {
            let identity = try #require(sample.source.device)
            #expect(identity.address == Self.device)
            #expect(identity.name == "HRM")
            #expect(identity.manufacturer == "Acme")
            #expect(identity.model == "HR-10")
            #expect(identity.serial == "SN1")
            #expect(identity.firmware == "1.0")
            #expect(identity.profile == "heart-rate")
            #expect(sample.source.decoder == "heart-rate-measurement")
        }
        #expect(abs(run.samples[1].value - 812.5) < 1e-9)
    }

    @Test func unknownCharacteristicMalformedPayloadAndUnclaimedDeviceAreBadEvents() {
        var run = Run()
        run.send(0, .advertisement(Advertisement(serviceUUIDs: [.heartRateService])))
        run.value(1, .weightMeasurement, [0x00, 0xA4, 0x38])
        run.value(2, .heartRateMeasurement, [0x11], .notification)
        run.send(
            3,
            .value(
                CharacteristicValue(characteristic: .heartRateMeasurement, bytes: [0x00, 60], delivery: .notification)
            ),
            device: "02:00:00:00:00:FF"
        )
        #expect(run.samples.isEmpty)
        #expect(run.issues.count == 3)
        #expect(run.issues.allSatisfy { $0.severity == .badEvent })
        #expect(run.issues[0].message.contains("unknown characteristic 2A9D"))
        #expect(run.issues[1].message.contains("malformed payload"))
        #expect(run.issues[2].message.contains("no device profile"))
        #expect(run.issues[2].device == "02:00:00:00:00:FF")
    }

    @Test func servicesClaimADeviceSeenWithoutAdvertisement() {
        var run = Run()
        run.send(0, .connected)
        run.send(0.5, .servicesDiscovered([.heartRateService: [.heartRateMeasurement]]))
        run.value(1, .heartRateMeasurement, [0x00, 61], .notification)
        #expect(run.samples.map(\.type) == [.heartRate])
        #expect(run.issues.isEmpty)
    }

    static func mi(_ control1: UInt8, impedance: UInt16 = 0, weight: UInt16 = 14500, second: Int = 12) -> Advertisement
    {
        let bytes =
            [0x02, control1] + dateTime(2026, 11, 20, 7, 59, second)
            + [UInt8(impedance & 0xFF), UInt8(impedance >> 8), UInt8(weight & 0xFF), UInt8(weight >> 8)]
        return Advertisement(serviceData: [.bodyCompositionService: bytes])
    }

    @Test func broadcastWeighInGivesOneSamplePerQuantity() {
        var run = Run()
        for weight: UInt16 in [6000, 12000, 14400] { run.advertise(Self.mi(0x00, weight: weight)) }  // unstable
        for _ in 0..<4 { run.advertise(Self.mi(0x20)) }  // stabilised, repeated
        for _ in 0..<3 { run.advertise(Self.mi(0x22, impedance: 500)) }  // impedance valid, repeated
        #expect(run.samples.isEmpty, "weigh-in still open")
        run.advertise(Self.mi(0xA2, impedance: 500))  // load removed: ends the weigh-in
        #expect(run.samples.map(\.type) == [.bodyMass, .bodyImpedance])
        for _ in 0..<3 { run.advertise(Self.mi(0xA2, impedance: 500)) }
        run.finish()
        #expect(run.samples.count == 2)
        #expect(run.issues.isEmpty)

        // A second weigh-in after a quiet gap gives its own samples.
        run.clock += 120
        run.advertise(Self.mi(0x20, weight: 14600, second: 40))
        run.finish()
        #expect(run.samples.count == 3)
        #expect(run.samples.last?.value == 73)
    }

    /// An MMC-W505 MiBeacon advertisement (the published frame's layout) with its counter and temperature.
    static func thermometer(counter: UInt8, centidegrees: UInt16) -> Advertisement {
        let bytes: [UInt8] =
            [0x70, 0x22, 0x91, 0x03, counter, 0xDB, 0xAB, 0x53, 0x18, 0x24, 0xD0, 0x09, 0x0A, 0x00, 0x02]
            + [UInt8(centidegrees & 0xFF), UInt8(centidegrees >> 8)]
        return Advertisement(serviceData: [BluetoothUUID(0xFE95): bytes])
    }

    @Test func broadcastStreamStoresEveryChangedReadingOnce() {
        var run = Run()
        for _ in 0..<3 { run.advertise(Self.thermometer(counter: 15, centidegrees: 3445)) }  // one reading, repeated
        #expect(run.samples.map(\.value) == [34.45])
        for _ in 0..<3 { run.advertise(Self.thermometer(counter: 16, centidegrees: 3450)) }
        run.advertise(Self.thermometer(counter: 17, centidegrees: 3445))  // the same temperature again is a new reading
        run.finish()
        #expect(run.samples.map(\.type) == [.bodyTemperature, .bodyTemperature, .bodyTemperature])
        #expect(run.samples.map(\.value) == [34.45, 34.5, 34.45])
        #expect(run.issues.isEmpty)
    }

    @Test func multiPacketBodyCompositionIsMergedBeforeDecoding() throws {
        var run = Run()
        run.send(0, .advertisement(Advertisement(serviceUUIDs: [.bodyCompositionService])))
        run.send(1, .connected)
        // Packet 1: flags 1006 (multiple packets, time stamp, user), body fat 22.4 %, time, user 1.
        run.value(
            2,
            .bodyCompositionMeasurement,
            [0x06, 0x10, 0xE0, 0x00] + Self.dateTime(2026, 11, 20, 7, 59, 0) + [0x01]
        )
        #expect(run.samples.isEmpty)
        // Packet 2: flags 1600 (multiple packets, impedance, weight), body fat, 500.0 Ω, 72.5 kg.
        run.value(2.1, .bodyCompositionMeasurement, [0x00, 0x16, 0xE0, 0x00, 0x88, 0x13, 0xA4, 0x38])
        run.send(3, .disconnected(reason: "remote"))
        let types = Set(run.samples.map(\.type))
        #expect(types == [.bodyFatPercentage, .bodyImpedance, .bodyMass])
        let mass = try #require(run.samples.first { $0.type == .bodyMass })
        #expect(mass.value == 72.5)
        #expect(mass.deviceTime?.minutes == 59)
        #expect(
            mass.rawPayload == [0x06, 0x06, 0xE0, 0x00] + Self.dateTime(2026, 11, 20, 7, 59, 0) + [
                0x01, 0x88, 0x13, 0xA4, 0x38,
            ]
        )
    }

    @Test func lonelyFirstPacketIsDroppedWithAWarning() {
        var run = Run()
        run.send(0, .advertisement(Advertisement(serviceUUIDs: [.bodyCompositionService])))
        run.send(1, .connected)
        run.value(2, .bodyCompositionMeasurement, [0x00, 0x10, 0xE0, 0x00])
        run.send(3, .disconnected(reason: "remote"))
        #expect(run.samples.isEmpty)
        #expect(run.issues.map(\.severity) == [.warning])
    }

    @Test func glucoseContextIsMatchedBySequenceNumber() throws {
        var run = Run()
        run.send(0, .advertisement(Advertisement(serviceUUIDs: [.glucoseService])))
        run.send(1, .connected)
        let time = Self.dateTime(2026, 11, 19, 7, 0, 0)
        // seq 5, context follows
        run.value(2, .glucoseMeasurement, [0x12, 0x05, 0x00] + time + [0x5F, 0xB0, 0x12], .notification)
        run.value(2.1, .glucoseMeasurement, [0x02, 0x06, 0x00] + time + [0x60, 0xB0, 0x12], .notification)  // seq 6
        run.value(2.2, .glucoseMeasurementContext, [0x02, 0x05, 0x00, 0x03], .notification)  // seq 5: fasting
        run.value(2.3, .recordAccessControlPoint, [0x06, 0x00, 0x01, 0x01])
        run.send(3, .disconnected(reason: "remote"))
        #expect(run.samples.count == 2)
        let five = try #require(run.samples.first { $0.value == 95 })
        let six = try #require(run.samples.first { $0.value == 96 })
        #expect(five.metadata.values.contains("fasting"))
        #expect(!six.metadata.values.contains("fasting"))
    }

    /// Glucose Measurement (2A18), flags 0x02 (type and sample location): sequence `sequence`,
    /// 2026-11-19T12:45:00, 142 mg/dL, capillary whole blood at the finger.
    static func glucose(sequence: UInt8) -> [UInt8] {
        [0x02, sequence, 0x00, 0xEA, 0x07, 0x0B, 0x13, 0x0C, 0x2D, 0x00, 0x8E, 0xB0, 0x12]
    }

    @Test func storedRecordsAreTheMeasurementsBetweenTheSessionsDownloadEvents() throws {
        var run = Run()
        run.send(0, .advertisement(Advertisement(name: "Meter", serviceUUIDs: [.glucoseService])))
        run.send(1, .connected)
        // The request alone (the bytes the bridge wrote) is not read: the session machine says when a download
        // starts.
        run.send(2, .written(CharacteristicWrite(characteristic: .recordAccessControlPoint, bytes: [0x01, 0x01])))
        run.value(3, .glucoseMeasurement, Self.glucose(sequence: 4))
        run.send(4, .download(.started))
        run.value(5, .glucoseMeasurement, Self.glucose(sequence: 5))
        run.value(6, .recordAccessControlPoint, [0x06, 0x00, 0x01, 0x01])
        run.send(6, .download(.ended))
        run.value(7, .glucoseMeasurement, Self.glucose(sequence: 6))
        run.send(8, .disconnected(reason: "remote"))
        #expect(run.issues.isEmpty, "\(run.issues)")
        #expect(run.samples.count == 3)
        let summary = try #require(run.pipeline.deviceSummaries.first)
        #expect(summary.downloadedRecords == 1)
    }
}
