import BridgeFoundation
import GATTDecoding
import Testing

/// Observation Schedule Changed (0x2BF1), from the Generic Health Sensor Service 1.0 §3 layout.
@Suite struct ObservationScheduleChangedTests {
    // b84b0200  Observation Type 150456 (MDC_PULS_OXIM_SAT_O2), uint32 LE
    // 01000000  Measurement Period: FLOAT mantissa 1, exponent 0 → 1 s
    // 3c000000  Update Interval: FLOAT mantissa 60, exponent 0 → 60 s
    let value = try! Hex.bytes("b84b0200 01000000 3c000000")

    @Test func decodesTheObservationTypeAndBothPeriodsInSeconds() throws {
        var reader = ByteReader(value, for: ObservationScheduleChanged.self)
        let schedule = try ObservationScheduleChanged(from: &reader)
        #expect(schedule.observationType == 150_456)
        #expect(schedule.measurementPeriod.doubleValue == 1)
        #expect(schedule.updateInterval.doubleValue == 60)
        #expect(schedule.bytes == value, "round trip")
        #expect(DecoderCatalog.decoder(forCharacteristic: BluetoothUUID(0x2BF1)) == ObservationScheduleChanged.self)
    }

    @Test func aTenthOfASecondKeepsItsExponent() throws {
        let schedule = ObservationScheduleChanged(
            observationType: 149_530,
            measurementPeriod: MedFloat(mantissa: 5, exponent: -1),
            updateInterval: MedFloat(mantissa: 1, exponent: 0)
        )
        var reader = ByteReader(schedule.bytes, for: ObservationScheduleChanged.self)
        let decoded = try ObservationScheduleChanged(from: &reader)
        #expect(decoded == schedule)
        #expect(decoded.measurementPeriod.doubleValue == 0.5)
    }

    @Test func everyTruncatedValueIsRejected() {
        for length in 0..<value.count {
            var reader = ByteReader(Array(value.prefix(length)), for: ObservationScheduleChanged.self)
            #expect(throws: GATTDecodingError.self) { try ObservationScheduleChanged(from: &reader) }
        }
    }
}
