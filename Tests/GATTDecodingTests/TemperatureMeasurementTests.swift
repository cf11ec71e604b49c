import BridgeFoundation
import GATTDecoding
import Testing

/// Temperature Measurement (2A1C) and Intermediate Temperature (2A1E) share one layout, so every test runs
/// against both.
@Suite struct TemperatureMeasurementTests {
    /// Flags 0x07 with every field.
    static let allFields: [UInt8] = [
        0x07,  // flags: Fahrenheit, Time Stamp, Temperature Type
        0xDA, 0x03, 0x00, 0xFF,  // FLOAT M = 986, E = −1 → 98.6 °F
        0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00,  // 2024-03-15 07:30:00
        0x03,  // type 3: ear
    ]

    /// What both decoders expose, so the tests can run over either.
    struct Reading: Equatable {
        var temperature: MedFloat
        var isFahrenheit: Bool
        var timeStamp: DateTime?
        var temperatureType: TemperatureType?
        var reservedFlags: UInt8
        var fields: JSONObject
    }

    static let decoders: [@Sendable ([UInt8]) throws -> Reading] = [
        { bytes in
            let value = try TemperatureMeasurement.decode(bytes)
            return Reading(
                temperature: value.temperature,
                isFahrenheit: value.isFahrenheit,
                timeStamp: value.timeStamp,
                temperatureType: value.temperatureType,
                reservedFlags: value.reservedFlags,
                fields: value.fields
            )
        },
        { bytes in
            let value = try IntermediateTemperature.decode(bytes)
            return Reading(
                temperature: value.temperature,
                isFahrenheit: value.isFahrenheit,
                timeStamp: value.timeStamp,
                temperatureType: value.temperatureType,
                reservedFlags: value.reservedFlags,
                fields: value.fields
            )
        },
    ]

    @Test(arguments: 0..<2)
    func decodesTheReferenceExample(decoder: Int) throws {
        // 04: type present, °C; 6D 01 00 FF: M = 365, E = −1 → 36.5; 06: mouth
        let value = try Self.decoders[decoder]([0x04, 0x6D, 0x01, 0x00, 0xFF, 0x06])
        #expect(value.temperature.doubleValue == 36.5)
        #expect(!value.isFahrenheit)
        #expect(value.temperatureType == .mouth)
        #expect(value.timeStamp == nil)
        #expect(
            value.fields == [
                "flags": .int(4), "temperature": .double(36.5), "temperatureUnit": .string("°C"),
                "temperatureType": .string("mouth"),
            ]
        )
    }

    @Test(arguments: 0..<2)
    func decodesEveryFieldInFahrenheit(decoder: Int) throws {
        let value = try Self.decoders[decoder](Self.allFields)
        #expect(value.isFahrenheit)
        #expect(value.temperature.doubleValue == 98.6)
        #expect(value.timeStamp == DateTime(year: 2024, month: 3, day: 15, hours: 7, minutes: 30, seconds: 0))
        #expect(value.temperatureType == .ear)
        #expect(value.fields.keys == ["flags", "temperature", "temperatureUnit", "timeStamp", "temperatureType"])
        #expect(value.fields["temperatureUnit"] == .string("°F"))
    }

    @Test(arguments: 0..<2, 0..<8)
    func decodesEveryFlagCombination(decoder: Int, flags: Int) throws {
        var payload: [UInt8] = [UInt8(flags), 0x6D, 0x01, 0x00, 0xFF]
        if flags & 0x02 != 0 { payload += [0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00] }
        if flags & 0x04 != 0 { payload += [0x01] }
        let value = try Self.decoders[decoder](payload)
        #expect(value.isFahrenheit == (flags & 1 != 0))
        #expect((value.timeStamp != nil) == (flags & 0x02 != 0))
        #expect(value.temperatureType == (flags & 0x04 != 0 ? .armpit : nil))
        #expect(value.temperature.doubleValue == 36.5)
    }

    @Test(arguments: 0..<2)
    func rejectsEveryTruncatedPrefix(decoder: Int) {
        for length in 0..<Self.allFields.count {
            #expect(throws: GATTDecodingError.self) { try Self.decoders[decoder](Array(Self.allFields.prefix(length))) }
        }
    }

    @Test(arguments: 0..<2, IEEE11073Special.allCases)
    func showsSpecialValuesByName(decoder: Int, special: IEEE11073Special) throws {
        let codes: [IEEE11073Special: [UInt8]] = [
            .nan: [0xFF, 0xFF, 0x7F, 0x00], .nres: [0x00, 0x00, 0x80, 0x00],
            .positiveInfinity: [0xFE, 0xFF, 0x7F, 0x00], .negativeInfinity: [0x02, 0x00, 0x80, 0x00],
            .reserved: [0x01, 0x00, 0x80, 0x00],
        ]
        let value = try Self.decoders[decoder]([0x00] + codes[special]!)
        #expect(value.temperature.special == special)
        #expect(value.temperature.doubleValue == nil)
        #expect(value.fields["temperature"] == .string(special.rawValue))
    }

    @Test(arguments: 0..<2)
    func ignoresReservedFlagBitsAndTrailingBytes(decoder: Int) throws {
        let value = try Self.decoders[decoder]([0xF8, 0x6D, 0x01, 0x00, 0xFF, 0xAA, 0xBB])
        #expect(value.reservedFlags == 0xF8)
        #expect(value.temperature.doubleValue == 36.5)
        #expect(value.timeStamp == nil && value.temperatureType == nil)
        #expect(value.fields["reservedFlags"] == .int(0xF8))
    }

    @Test func theTwoCharacteristicsAreDistinctDecoders() {
        #expect(TemperatureMeasurement.source == .characteristic(BluetoothUUID(0x2A1C)))
        #expect(IntermediateTemperature.source == .characteristic(BluetoothUUID(0x2A1E)))
        #expect(TemperatureMeasurement.identifier == "temperature-measurement")
        #expect(IntermediateTemperature.identifier == "intermediate-temperature")
        #expect(DecoderCatalog.decoder(forCharacteristic: BluetoothUUID(0x2A1C)) == TemperatureMeasurement.self)
        #expect(DecoderCatalog.decoder(forCharacteristic: BluetoothUUID(0x2A1E)) == IntermediateTemperature.self)
    }

    @Test func errorsNameTheirOwnCharacteristic() {
        #expect(
            throws: GATTDecodingError(
                context: "Intermediate Temperature (2A1E)",
                offset: 1,
                reason: .insufficientBytes(field: "Temperature", expected: 4, available: 2)
            )
        ) {
            try IntermediateTemperature.decode([0x00, 0x6D, 0x01])
        }
        #expect(
            throws: GATTDecodingError(
                context: "Temperature Measurement (2A1C)",
                offset: 5,
                reason: .insufficientBytes(field: "Temperature Type", expected: 1, available: 0)
            )
        ) {
            try TemperatureMeasurement.decode([0x04, 0x6D, 0x01, 0x00, 0xFF])
        }
    }
}

@Suite struct TemperatureTypeTests {
    @Test(arguments: UInt8.min...UInt8.max)
    func namesEveryCode(code: UInt8) throws {
        let names = [
            1: "armpit", 2: "body", 3: "ear", 4: "finger", 5: "gastrointestinalTract", 6: "mouth", 7: "rectum",
            8: "toe", 9: "tympanum",
        ]
        let value = try TemperatureType.decode([code])
        #expect(value.rawValue == code)
        #expect(value.siteName == names[Int(code)])
        #expect(value.fields["temperatureType"] == .string(names[Int(code)] ?? "reserved"))
        #expect(value.fields["code"] == .int(Int(code)))
    }

    @Test func rejectsTwoOctets() {
        #expect(
            throws: GATTDecodingError(
                context: "Temperature Type (2A1D)",
                offset: 1,
                reason: .unexpectedLength(expected: "exactly 1 byte", actual: 2)
            )
        ) {
            try TemperatureType.decode([0x06, 0x00])
        }
    }

    @Test func rejectsAnEmptyValue() {
        #expect(throws: GATTDecodingError.self) { try TemperatureType.decode([]) }
    }
}
