import BridgeFoundation
import GATTDecoding
import Testing

@Suite struct HeartRateMeasurementTests {
    @Test func decodesTheReferenceExample() throws {
        // 16 = 0b0001_0110: uint8 HR, contact supported and detected, RR present; 48: 72 bpm;
        // 40 03: RR 832/1024 s = 812.5 ms
        let value = try HeartRateMeasurement.decode([0x16, 0x48, 0x40, 0x03])
        #expect(value.heartRate == 72)
        #expect(!value.isUInt16)
        #expect(value.sensorContact == .detected)
        #expect(value.energyExpended == nil)
        #expect(Array(value.rrIntervals) == [832])
        #expect(RRIntervals.milliseconds(value.rrIntervals[0]) == 812.5)
        #expect(
            value.fields == [
                "flags": .int(0x16), "heartRateFormat": .string("uint8"), "sensorContact": .string("detected"),
                "heartRate": .int(72), "heartRateUnit": .string("bpm"), "rrIntervals": .array([.double(812.5)]),
                "rrIntervalUnit": .string("ms"),
            ]
        )
    }

    @Test func decodesUInt16HeartRateEnergyAndSeveralRRIntervals() throws {
        let payload: [UInt8] = [
            0x19,  // flags: uint16 HR, contact not supported, Energy Expended, RR
            0x2C, 0x01,  // heart rate 300 bpm
            0x39, 0x30,  // energy expended 12345 kJ
            0x00, 0x04,  // RR 1024/1024 s = 1000 ms
            0x00, 0x02,  // RR 512/1024 s = 500 ms
            0x01, 0x00,  // RR 1/1024 s = 0.9765625 ms
        ]
        let value = try HeartRateMeasurement.decode(payload)
        #expect(value.isUInt16)
        #expect(value.heartRate == 300)
        #expect(value.sensorContact == .notSupported)
        #expect(value.energyExpended == 12345)
        #expect(Array(value.rrIntervals) == [1024, 512, 1])
        #expect(value.fields["rrIntervals"] == .array([.double(1000), .double(500), .double(0.9765625)]))
        #expect(value.fields["energyExpended"] == .int(12345))
        #expect(value.fields["energyExpendedUnit"] == .string("kJ"))
        #expect(value.fields["heartRateFormat"] == .string("uint16"))
    }

    @Test(arguments: [
        (UInt8(0x00), HeartRateMeasurement.SensorContact.notSupported), (0x02, .notSupported), (0x04, .notDetected),
        (0x06, .detected),
    ])
    func readsThreeStateSensorContact(bits: UInt8, contact: HeartRateMeasurement.SensorContact) throws {
        let value = try HeartRateMeasurement.decode([bits, 60])
        #expect(value.sensorContact == contact)
        #expect(value.fields["sensorContact"] == .string(contact.rawValue))
    }

    @Test(arguments: 0..<32)
    func decodesEveryFlagCombination(flags: Int) throws {
        var payload: [UInt8] = [UInt8(flags)]
        payload += flags & 0x01 != 0 ? [0x48, 0x00] : [0x48]  // 72 bpm either way
        if flags & 0x08 != 0 { payload += [0x10, 0x00] }  // 16 kJ
        if flags & 0x10 != 0 { payload += [0x40, 0x03, 0x00, 0x04] }  // 832, 1024
        let value = try HeartRateMeasurement.decode(payload)
        #expect(value.heartRate == 72)
        #expect(value.isUInt16 == (flags & 1 != 0))
        #expect(value.energyExpended == (flags & 0x08 != 0 ? 16 : nil))
        #expect(Array(value.rrIntervals) == (flags & 0x10 != 0 ? [832, 1024] : []))
        #expect((value.fields["rrIntervals"] != nil) == (flags & 0x10 != 0))
    }

    @Test func rejectsEveryTruncatedPrefix() {
        let payload: [UInt8] = [0x1F, 0x48, 0x00, 0x10, 0x00, 0x40, 0x03]  // uint16 HR, EE, one RR
        for length in 0..<payload.count {
            #expect(throws: GATTDecodingError.self) { try HeartRateMeasurement.decode(Array(payload.prefix(length))) }
        }
    }

    @Test func prefixesWithFewerRRIntervalsDecodeAndOddOnesAreFramingErrors() throws {
        let payload: [UInt8] = [0x10, 0x48, 0x40, 0x03, 0x00, 0x04, 0x00, 0x02]  // RR 832, 1024, 512
        for length in 4...payload.count {
            let prefix = Array(payload.prefix(length))
            if length % 2 == 0 {
                let value = try HeartRateMeasurement.decode(prefix)
                #expect(Array(value.rrIntervals) == Array([832, 1024, 512].prefix((length - 2) / 2)))
            } else {
                #expect(
                    throws: GATTDecodingError(
                        context: "Heart Rate Measurement (2A37)",
                        offset: length - 1,
                        reason: .insufficientBytes(field: "RR-Interval", expected: 2, available: 1)
                    )
                ) {
                    try HeartRateMeasurement.decode(prefix)
                }
            }
        }
    }

    @Test func rrFlagWithoutAnIntervalIsAnError() {
        #expect(
            throws: GATTDecodingError(
                context: "Heart Rate Measurement (2A37)",
                offset: 2,
                reason: .insufficientBytes(field: "RR-Interval", expected: 2, available: 0)
            )
        ) {
            try HeartRateMeasurement.decode([0x10, 0x48])
        }
    }

    @Test func decodesAnyNumberOfRRIntervals() throws {
        let raws: [UInt16] = (0..<60).map { UInt16(600 + $0 * 7) }
        var payload: [UInt8] = [0x10, 0x48]
        for raw in raws { payload += [UInt8(raw & 0xFF), UInt8(raw >> 8)] }
        let value = try HeartRateMeasurement.decode(payload)
        #expect(Array(value.rrIntervals) == raws)
        #expect(value.rrIntervals == RRIntervals(raws))
        #expect(value.rrIntervals.count == 60)
    }

    @Test func ignoresReservedFlagBitsAndShowsThem() throws {
        let value = try HeartRateMeasurement.decode([0xE0, 0x48])
        #expect(value.reservedFlags == 0xE0)
        #expect(value.heartRate == 72)
        #expect(value.rrIntervals.isEmpty)
        #expect(value.fields["reservedFlags"] == .int(0xE0))
    }

    @Test func heartRateZeroDuringWarmUpDecodes() throws {
        #expect(try HeartRateMeasurement.decode([0x00, 0x00]).heartRate == 0)
    }

    @Test func equalMeasurementsCompareEqualWhateverTheirBacking() throws {
        let a = try HeartRateMeasurement.decode([0x10, 0x48, 0x40, 0x03])
        let b = try HeartRateMeasurement.decode([0x10, 0x48, 0x40, 0x03])
        let c = try HeartRateMeasurement.decode([0x10, 0x48, 0x41, 0x03])
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != c)
    }

    @Test func isInTheCatalogue() {
        #expect(DecoderCatalog.decoder(forCharacteristic: BluetoothUUID(0x2A37)) == HeartRateMeasurement.self)
    }
}

@Suite struct BodySensorLocationTests {
    @Test(arguments: UInt8.min...UInt8.max)
    func namesEveryCode(code: UInt8) throws {
        let names = [0: "other", 1: "chest", 2: "wrist", 3: "finger", 4: "hand", 5: "earLobe", 6: "foot"]
        let value = try BodySensorLocation.decode([code])
        #expect(value.locationName == names[Int(code)])
        #expect(value.isReserved == (code > 6))
        #expect(value.fields == ["code": .int(Int(code)), "location": .string(names[Int(code)] ?? "reserved")])
    }

    @Test func rejectsAnEmptyValue() {
        #expect(throws: GATTDecodingError.self) { try BodySensorLocation.decode([]) }
    }

    @Test func isInTheCatalogue() {
        #expect(DecoderCatalog.decoder(forCharacteristic: BluetoothUUID(0x2A38)) == BodySensorLocation.self)
        #expect(BodySensorLocation.chest.rawValue == 1)
    }
}
