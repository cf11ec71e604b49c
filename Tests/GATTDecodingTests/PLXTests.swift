import BridgeFoundation
import GATTDecoding
import Testing

@Suite struct PLXSpotCheckMeasurementTests {
    /// Flags 0x1F: every field, device clock not set.
    private let allFields: [UInt8] = [
        0x1F,  // flags: timestamp, measurement status, device+sensor status, PAI, device clock not set
        0x61, 0x00,  // SpO2 97 %
        0x40, 0x00,  // PR 64 bpm
        0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00,  // 2024-03-15 07:30:00
        0x80, 0x01,  // measurement status: bit 7 validated, bit 8 fully qualified
        0x20, 0x00, 0x00,  // device and sensor status (uint24): bit 5 low perfusion
        0x34, 0xF0,  // PAI SFLOAT E = −1, M = 52 → 5.2 %
    ]

    @Test func decodesTheDocumentExample() throws {
        // 00 61 00 40 00 → SpO2 97 %, PR 64 bpm
        let value = try PLXSpotCheckMeasurement.decode(hex("00 61 00 40 00"))
        #expect(value.spo2.doubleValue == 97)
        #expect(value.pulseRate.doubleValue == 64)
        #expect(value.timeStamp == nil && value.measurementStatus == nil && value.deviceAndSensorStatus == nil)
        #expect(!value.isDeviceClockNotSet)
        #expect(value.fields.keys == ["flags", "spo2", "spo2Unit", "pulseRate", "pulseRateUnit", "deviceClockNotSet"])
    }

    @Test func decodesEveryField() throws {
        let value = try PLXSpotCheckMeasurement.decode(allFields)
        #expect(value.timeStamp == .example)
        #expect(value.measurementStatus == [.validatedData, .fullyQualifiedData])
        #expect(value.measurementStatus?.names == ["validated data", "fully qualified data"])
        #expect(value.deviceAndSensorStatus == .lowPerfusionDetected)
        #expect(value.pulseAmplitudeIndex?.doubleValue == 5.2)
        #expect(value.isDeviceClockNotSet)
        #expect(
            value.fields.keys == [
                "flags", "spo2", "spo2Unit", "pulseRate", "pulseRateUnit", "timeStamp", "measurementStatus",
                "measurementStatusBits", "deviceAndSensorStatus", "deviceAndSensorStatusBits", "pulseAmplitudeIndex",
                "pulseAmplitudeIndexUnit", "deviceClockNotSet",
            ]
        )
        #expect(value.fields["deviceAndSensorStatusBits"] == .array([.string("low perfusion detected")]))
    }

    @Test func decodesEveryFlagCombination() throws {
        for flags in 0..<32 {
            var payload: [UInt8] = [UInt8(flags), 0x61, 0x00, 0x40, 0x00]
            if flags & 0x01 != 0 { payload += DateTime.exampleBytes }
            if flags & 0x02 != 0 { payload += [0x20, 0x00] }
            if flags & 0x04 != 0 { payload += [0x00, 0x80, 0x00] }
            if flags & 0x08 != 0 { payload += [0x34, 0xF0] }
            let value = try PLXSpotCheckMeasurement.decode(payload)
            #expect((value.timeStamp != nil) == (flags & 0x01 != 0), "flags \(flags)")
            #expect((value.measurementStatus != nil) == (flags & 0x02 != 0), "flags \(flags)")
            #expect((value.deviceAndSensorStatus != nil) == (flags & 0x04 != 0), "flags \(flags)")
            #expect((value.pulseAmplitudeIndex != nil) == (flags & 0x08 != 0), "flags \(flags)")
            #expect(value.isDeviceClockNotSet == (flags & 0x10 != 0), "flags \(flags)")
            if flags & 0x02 != 0 { #expect(value.measurementStatus == .measurementOngoing) }
            if flags & 0x04 != 0 { #expect(value.deviceAndSensorStatus == .sensorDisconnected) }
        }
    }

    @Test func deviceAndSensorStatusIsThreeOctets() throws {
        // If it were read as 4 octets, the PAI would start one byte late.
        let value = try PLXSpotCheckMeasurement.decode([0x0C, 0x61, 0x00, 0x40, 0x00, 0x01, 0x00, 0xFF, 0x34, 0xF0])
        #expect(value.deviceAndSensorStatus?.rawValue == 0xFF_0001)
        #expect(value.deviceAndSensorStatus?.names.first == "extended display update ongoing")
        #expect(value.deviceAndSensorStatus?.names.last == "reserved bit 23")
        #expect(value.pulseAmplitudeIndex?.doubleValue == 5.2)
    }

    @Test func measurementStatusRFUBitsAreShownAsReserved() throws {
        let value = try PLXSpotCheckMeasurement.decode([0x02, 0x61, 0x00, 0x40, 0x00, 0x1F, 0x80])
        #expect(
            value.measurementStatus?.names == [
                "reserved bit 0", "reserved bit 1", "reserved bit 2", "reserved bit 3", "reserved bit 4",
                "invalid measurement detected",
            ]
        )
    }

    @Test func specialValuesDecodeAsTheirNames() throws {
        // SpO2 NaN (searching), PR NRes, PAI −INF
        let value = try PLXSpotCheckMeasurement.decode([0x08, 0xFF, 0x07, 0x00, 0x08, 0x02, 0x08])
        #expect(value.fields["spo2"] == .string("NaN"))
        #expect(value.fields["pulseRate"] == .string("NRes"))
        #expect(value.fields["pulseAmplitudeIndex"] == .string("-INF"))
        #expect(value.spo2.doubleValue == nil)
    }

    @Test func ignoresReservedFlagBitsAndTrailingBytes() throws {
        let value = try PLXSpotCheckMeasurement.decode([0xE0, 0x61, 0x00, 0x40, 0x00, 0x99])
        #expect(value.reservedFlags == 0xE0)
        #expect(value.fields["reservedFlags"] == .int(0xE0))
        #expect(value.spo2.doubleValue == 97)
    }

    @Test func rejectsEveryTruncatedPrefix() {
        expectEveryPrefixThrows(PLXSpotCheckMeasurement.self, allFields)
    }
}

@Suite struct PLXContinuousMeasurementTests {
    /// Flags 0x1F: every field.
    private let allFields: [UInt8] = [
        0x1F,  // flags: fast, slow, measurement status, device+sensor status, PAI
        0x62, 0x00, 0x48, 0x00,  // normal: SpO2 98 %, PR 72 bpm
        0x61, 0x00, 0x49, 0x00,  // fast: SpO2 97 %, PR 73 bpm
        0x60, 0x00, 0x47, 0x00,  // slow: SpO2 96 %, PR 71 bpm
        0x00, 0x01,  // measurement status: bit 8 fully qualified
        0x10, 0x00, 0x00,  // device and sensor status: bit 4 poor signal
        0x34, 0xF0,  // PAI 5.2 %
    ]

    @Test func decodesTheDocumentExample() throws {
        // 00 62 00 48 00 → SpO2 98 %, PR 72 bpm
        let value = try PLXContinuousMeasurement.decode(hex("00 62 00 48 00"))
        #expect(value.spo2.doubleValue == 98)
        #expect(value.pulseRate.doubleValue == 72)
        #expect(value.spo2Fast == nil && value.spo2Slow == nil)
        #expect(value.fields.keys == ["flags", "spo2", "spo2Unit", "pulseRate", "pulseRateUnit"])
    }

    @Test func decodesEveryField() throws {
        let value = try PLXContinuousMeasurement.decode(allFields)
        #expect(value.spo2Fast?.doubleValue == 97)
        #expect(value.pulseRateFast?.doubleValue == 73)
        #expect(value.spo2Slow?.doubleValue == 96)
        #expect(value.pulseRateSlow?.doubleValue == 71)
        #expect(value.measurementStatus == .fullyQualifiedData)
        #expect(value.deviceAndSensorStatus == .poorSignalDetected)
        #expect(value.pulseAmplitudeIndex?.doubleValue == 5.2)
        #expect(
            value.fields.keys == [
                "flags", "spo2", "spo2Unit", "pulseRate", "pulseRateUnit", "spo2Fast", "pulseRateFast", "spo2Slow",
                "pulseRateSlow", "measurementStatus", "measurementStatusBits", "deviceAndSensorStatus",
                "deviceAndSensorStatusBits", "pulseAmplitudeIndex", "pulseAmplitudeIndexUnit",
            ]
        )
    }

    @Test func decodesEveryFlagCombination() throws {
        for flags in 0..<32 {
            var payload: [UInt8] = [UInt8(flags), 0x62, 0x00, 0x48, 0x00]
            if flags & 0x01 != 0 { payload += [0x61, 0x00, 0x49, 0x00] }
            if flags & 0x02 != 0 { payload += [0x60, 0x00, 0x47, 0x00] }
            if flags & 0x04 != 0 { payload += [0x40, 0x00] }
            if flags & 0x08 != 0 { payload += [0x00, 0x02, 0x00] }
            if flags & 0x10 != 0 { payload += [0x34, 0xF0] }
            let value = try PLXContinuousMeasurement.decode(payload)
            #expect((value.spo2Fast != nil) == (flags & 0x01 != 0), "flags \(flags)")
            #expect((value.spo2Slow != nil) == (flags & 0x02 != 0), "flags \(flags)")
            #expect((value.measurementStatus != nil) == (flags & 0x04 != 0), "flags \(flags)")
            #expect((value.deviceAndSensorStatus != nil) == (flags & 0x08 != 0), "flags \(flags)")
            #expect((value.pulseAmplitudeIndex != nil) == (flags & 0x10 != 0), "flags \(flags)")
            if flags & 0x02 != 0 { #expect(value.pulseRateSlow?.doubleValue == 71) }
            if flags & 0x04 != 0 { #expect(value.measurementStatus == .earlyEstimatedData) }
            if flags & 0x08 != 0 { #expect(value.deviceAndSensorStatus == .signalAnalysisOngoing) }
        }
    }

    @Test func specialValuesDecodeAsTheirNames() throws {
        let value = try PLXContinuousMeasurement.decode([0x01, 0xFF, 0x07, 0xFF, 0x07, 0x01, 0x08, 0xFE, 0x07])
        #expect(value.fields["spo2"] == .string("NaN"))
        #expect(value.fields["pulseRate"] == .string("NaN"))
        #expect(value.fields["spo2Fast"] == .string("reserved"))
        #expect(value.fields["pulseRateFast"] == .string("+INF"))
    }

    @Test func ignoresReservedFlagBits() throws {
        let value = try PLXContinuousMeasurement.decode([0xA0, 0x62, 0x00, 0x48, 0x00])
        #expect(value.reservedFlags == 0xA0)
        #expect(value.fields["reservedFlags"] == .int(0xA0))
    }

    @Test func rejectsEveryTruncatedPrefix() {
        expectEveryPrefixThrows(PLXContinuousMeasurement.self, allFields)
    }
}

@Suite struct PLXFeaturesTests {
    @Test func decodesBothSupportFields() throws {
        let payload: [UInt8] = [
            0x4B, 0x00,  // features: bit 0 status support, bit 1 device status support, bit 3 timestamp, bit 6 PAI
            0xE0, 0x01,  // measurement status support: bits 5–8
            0x0A, 0x80, 0x00,  // device and sensor status support: bits 1, 3, 15
        ]
        let value = try PLXFeatures.decode(payload)
        #expect(value.supportedFeatures == 0x004B)
        #expect(value.supportsSpotCheckTimestamp)
        #expect(!value.supportsSpotCheckStorage)
        #expect(
            value.measurementStatusSupport == [
                .measurementOngoing, .earlyEstimatedData, .validatedData, .fullyQualifiedData,
            ]
        )
        #expect(
            value.deviceAndSensorStatusSupport == [
                .equipmentMalfunctionDetected, .inadequateSignalDetected, .sensorDisconnected,
            ]
        )
        #expect(
            value.fields["supportedFeatureNames"]
                == .array([
                    .string("measurement status support present"), .string("device and sensor status support present"),
                    .string("spot-check timestamp"), .string("pulse amplitude index"),
                ])
        )
        #expect(
            value.fields.keys == [
                "supportedFeatures", "supportedFeatureNames", "measurementStatusSupport",
                "measurementStatusSupportBits",
                "deviceAndSensorStatusSupport", "deviceAndSensorStatusSupportBits",
            ]
        )
        expectEveryPrefixThrows(PLXFeatures.self, payload)
    }

    @Test func decodesEveryCombinationOfTheGatingBits() throws {
        for bits in 0..<4 {
            var payload: [UInt8] = [UInt8(bits) | 0xB4, 0x00]
            if bits & 1 != 0 { payload += [0x00, 0x20] }
            if bits & 2 != 0 { payload += [0x00, 0x00, 0x01] }
            let value = try PLXFeatures.decode(payload)
            #expect((value.measurementStatusSupport != nil) == (bits & 1 != 0))
            #expect((value.deviceAndSensorStatusSupport != nil) == (bits & 2 != 0))
            if bits & 1 != 0 { #expect(value.measurementStatusSupport == .measurementUnavailable) }
            if bits & 2 != 0 { #expect(value.deviceAndSensorStatusSupport?.names == ["reserved bit 16"]) }
        }
    }

    @Test func reservedFeatureBitsAreIgnoredButShown() throws {
        let value = try PLXFeatures.decode([0x80, 0x81])
        #expect(value.reservedFeatures == 0x8100)
        #expect(value.fields["reservedFeatures"] == .int(0x8100))
        #expect(value.fields["supportedFeatureNames"] == .array([.string("multiple bonds")]))
    }
}
