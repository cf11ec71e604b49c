import BridgeFoundation
import GATTDecoding
import Testing

/// Byte vectors built by hand from the field layout of Generic Health Sensor Service 1.0 §3 (Segmentation Header,
/// Health Observation Body, Elapsed Time), annotated field by field; not captured from a device.
@Suite struct HealthObservationTests {
    /// Live SpO2 96 % at 2026-11-19 21:30:00 local time.
    static let liveSpO2: [UInt8] = hex(
        "03"  // segmentation header: first and last segment, counter 0
            + " 01 1800"  // class numeric, Length 24 (the whole body)
            + " 0300"  // flags: observation type, time stamp
            + " b84b0200"  // type 150456 MDC_PULS_OXIM_SAT_O2
            + " 00 d82692320000 00 00"  // Elapsed Time: local, 1 s; 848_439_000 s since 2000 = 2026-11-19 21:30:00
            + " 2002"  // unit 544 MDC_DIM_PERCENT
            + " 60000000"  // FLOAT 96 × 10⁰
    )

    /// Live blood pressure 120/80 mmHg, mean 93, a compound observation at 2026-11-18 07:50:00.
    static let liveBloodPressure: [UInt8] = hex(
        "03 07 3400 0300"  // whole value; class compound, Length 52; flags: type, time stamp
            + " 044a0200"  // type 150020 MDC_PRESS_BLD_NONINV
            + " 00 281590320000 00 00"  // 2026-11-18 07:50:00 local
            + " 03"  // three components
            + " 054a0200 01 200f 78000000"  // 150021 systolic, numeric, unit 3872 mmHg, 120
            + " 064a0200 01 200f 50000000"  // 150022 diastolic, 80
            + " 074a0200 01 200f 5d000000"  // 150023 mean, 93
    )

    /// Stored record 1: SpO2 97 % at 2026-11-18 07:45:00.
    static let storedSpO2: [UInt8] = hex(
        "03 01000000"  // whole value; record number 1
            + " 01 1800 0300 b84b0200 00 fc1390320000 00 00 2002 61000000"
    )

    @Test func decodesANumericObservationWithItsTimeStamp() throws {
        let value = try LiveHealthObservations.decode(Self.liveSpO2)
        let observation = value.observation
        #expect(observation.classType == .numeric)
        #expect(observation.type == 150_456)
        #expect(observation.value == .numeric(unit: 544, value: MedFloat(mantissa: 96, exponent: 0)))
        let stamp = try #require(observation.timeStamp)
        #expect(!stamp.isUTC && !stamp.isTickCounter && stamp.ticksPerSecond == 1)
        #expect(stamp.wallClock == DateTime(year: 2026, month: 11, day: 19, hours: 21, minutes: 30, seconds: 0))
        #expect(observation.fields["type"] == .int(150_456))
    }

    @Test func decodesACompoundObservationComponentByComponent() throws {
        let observation = try LiveHealthObservations.decode(Self.liveBloodPressure).observation
        #expect(observation.classType == .compound)
        guard case .compound(let components) = observation.value else {
            Issue.record("not compound: \(observation.value)")
            return
        }
        #expect(components.map(\.type) == [150_021, 150_022, 150_023])
        #expect(
            components.map(\.value)
                == [120, 80, 93].map { .numeric(unit: 3872, value: MedFloat(mantissa: $0, exponent: 0)) }
        )
    }

    @Test func storedObservationsCarryTheirRecordNumber() throws {
        let value = try StoredHealthObservations.decode(Self.storedSpO2)
        #expect(value.recordNumber == 1)
        #expect(value.observation.value == .numeric(unit: 544, value: MedFloat(mantissa: 97, exponent: 0)))
    }

    @Test func everyTruncatedValueIsRejected() {
        expectEveryPrefixThrows(LiveHealthObservations.self, Self.liveSpO2)
        expectEveryPrefixThrows(LiveHealthObservations.self, Self.liveBloodPressure)
        expectEveryPrefixThrows(StoredHealthObservations.self, Self.storedSpO2)
    }

    @Test func optionalFieldsAreReadInFlagOrder() throws {
        // flags 0x03FF: every optional field, in order, before the numeric value.
        let body = hex(
            "ff03 b84b0200"  // flags, type
                + " 02 e80300000000 00 04"  // time stamp: UTC, 1000 s; TZ/DST +1 h
                + " 0a0000fe"  // measurement duration FLOAT 10 × 10⁻² s
                + " 0200"  // measurement status: questionable
                + " 07000000 01"  // observation id 7, patient 1
                + " 01 0a000100 01 05000000 01 06000000"  // supplemental info, derived-from, is-member-of
                + " 01 01000200 0200 00 abcd"  // one TLV: type 0x20001, length 2, format 0, value
                + " 2002 61000000"
        )
        let value = try LiveHealthObservations.decode([0x03, 0x01] + [UInt8(body.count + 3), 0] + body)
        let observation = value.observation
        #expect(observation.timeStamp?.isUTC == true)
        #expect(observation.measurementDuration == MedFloat(mantissa: 10, exponent: -2))
        #expect(observation.measurementStatus == .questionable)
        #expect(observation.observationID == 7 && observation.patient == 1)
        #expect(observation.supplementalInformation == [0x1000A])
        #expect(observation.derivedFrom == [5] && observation.memberOf == [6])
        #expect(observation.tlvs.first?.value == [0xAB, 0xCD])
        #expect(observation.value == .numeric(unit: 544, value: MedFloat(mantissa: 97, exponent: 0)))
    }

    @Test func aSegmentOfALongerValueIsNotDecodedAlone() {
        var first = Self.liveSpO2
        first[0] = 0x01  // first segment, more to come
        #expect(throws: GATTDecodingError.self) { try LiveHealthObservations.decode(first) }
    }

    @Test func segmentsJoinIntoTheWholeValueWithItsCounterCleared() throws {
        // The SpO2 value split after 10 octets of data into three segments, counters 5, 6, 7.
        let data = Array(Self.liveSpO2.dropFirst())
        let parts = [Array(data[0..<10]), Array(data[10..<20]), Array(data[20...])]
        let segments = [[0x01 | 5 << 2] + parts[0], [6 << 2] + parts[1], [0x02 | 7 << 2] + parts[2]]
        #expect(LiveHealthObservations.continues(segments[0]))
        let two = try LiveHealthObservations.merge(segments[0], segments[1])
        #expect(LiveHealthObservations.continues(two))
        let three = try LiveHealthObservations.merge(two, segments[2])
        #expect(!LiveHealthObservations.continues(three))
        #expect(LiveHealthObservations.complete(three) == Self.liveSpO2)
        // a lost segment: the counter jumps
        #expect(throws: GATTDecodingError.self) { try LiveHealthObservations.merge(segments[0], segments[2]) }
    }

    @Test func anUnknownClassIsKeptAsBytes() throws {
        let value = try LiveHealthObservations.decode(hex("03 42 0900 0000 aabbcc dd"))
        #expect(value.observation.classType.name == "class 0x42")
        #expect(value.observation.value == .unknown([0xAA, 0xBB, 0xCC, 0xDD]))
    }

    @Test func currentElapsedTimeReadsTheClock() throws {
        let clock = try ElapsedTime.decode(hex("02 d82692320000 01 00"))
        #expect(clock.isUTC)
        #expect(clock.deviceClockIsUTC)
        #expect(clock.deviceClock == DateTime(year: 2026, month: 11, day: 19, hours: 21, minutes: 30, seconds: 0))
        #expect(clock.bytes == hex("02 d82692320000 01 00"))
        let ticks = try ElapsedTime.decode(hex("01 10000000 0000 00 00"))
        #expect(ticks.wallClock == nil && ticks.deviceClock.isUnknown)
        expectEveryPrefixThrows(ElapsedTime.self, clock.bytes)
    }
}
