import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import Testing

/// GHS observations become samples with their MDC codes kept (vectors: ``HealthObservationTests``'s layout, built
/// from Generic Health Sensor Service 1.0 §3).
@Suite struct HealthObservationSamplesTests {
    private let liveSpO2 = hex(
        "03 01 1800 0300 b84b0200 00 d82692320000 00 00 2002 60000000"
    )
    private let liveBloodPressure = hex(
        "03 07 3400 0300 044a0200 00 281590320000 00 00 03"
            + " 054a0200 01 200f 78000000 064a0200 01 200f 50000000 074a0200 01 200f 5d000000"
    )

    @Test func spo2IsAnOxygenSaturationSampleAtTheDeviceTimeWithItsMDCCode() throws {
        let result = try samples(LiveHealthObservations.self, liveSpO2)
        let sample = try #require(result.first)
        #expect(result.count == 1)
        #expect(sample.type == .oxygenSaturation && sample.value == 96 && sample.unit == .percent)
        #expect(berlinTime(sample.start) == "2026-11-19T21:30:00+01:00")
        #expect(sample.metadata["mdc.code"] == "150456")
        #expect(sample.metadata["mdc.name"] == "MDC_PULS_OXIM_SAT_O2")
        #expect(sample.metadata["mdc.unit"] == "544")
    }

    @Test func aCompoundBloodPressureGivesOneSamplePerComponent() throws {
        let result = try samples(LiveHealthObservations.self, liveBloodPressure)
        #expect(result.map(\.type) == [.bloodPressureSystolic, .bloodPressureDiastolic, .meanArterialPressure])
        #expect(result.map(\.value) == [120, 80, 93])
        #expect(result.allSatisfy { $0.metadata["mdc.compound"] == "150020" })
        #expect(result.map { $0.metadata["mdc.code"] } == ["150021", "150022", "150023"])
    }

    @Test func aUTCTimeStampIsPlacedAtItsInstant() throws {
        // Elapsed Time flags 0x02: UTC. 2026-11-19 21:30:00 UTC is 22:30 in Berlin.
        let utc = hex("03 01 1800 0300 b84b0200 02 d82692320000 00 00 2002 60000000")
        let sample = try #require(try samples(LiveHealthObservations.self, utc).first)
        #expect(berlinTime(sample.start) == "2026-11-19T22:30:00+01:00")
        #expect(sample.metadata["ghs.time"] == "UTC")
    }

    @Test func anUnknownCodeGivesNoSampleButIsReported() throws {
        // type 999999, no time stamp
        let unknown = try LiveHealthObservations.decode(hex("03 01 0f00 0100 3f420f00 2002 05000000"))
        #expect(unknown.unmappedValues.count == 1)
        #expect(unknown.unmappedValues.first?.contains("999999") == true)
        #expect(try samples(LiveHealthObservations.self, hex("03 01 0f00 0100 3f420f00 2002 05000000")).isEmpty)
        #expect(try LiveHealthObservations.decode(liveSpO2).unmappedValues.isEmpty)
    }

    @Test(
        "the Patient field names the UDS user the sample belongs to; 0xFF is the unknown user, kept",
        arguments: [
            ("02", "2"), ("ff", "unknown"),
        ]
    )
    func thePatientFieldBecomesTheSamplesUser(patient: String, user: String) throws {
        // Flags 0x0023: type, time stamp, Patient (length 25).
        let value = hex("03 01 1900 2300 b84b0200 00 d82692320000 00 00 \(patient) 2002 60000000")
        let result = try samples(LiveHealthObservations.self, value)
        let sample = try #require(result.first, "an observation of any user gives its sample")
        #expect(result.count == 1 && sample.value == 96)
        #expect(sample.metadata["userID"] == user)
        #expect(sample.metadata["ghs.patient"] == String(Int(patient, radix: 16)!))
        #expect(try samples(LiveHealthObservations.self, liveSpO2).first?.metadata["userID"] == nil)
    }

    @Test func storedObservationsKeepTheirRecordNumber() throws {
        let stored = hex("03 01000000 01 1800 0300 b84b0200 00 fc1390320000 00 00 2002 61000000")
        let sample = try #require(try samples(StoredHealthObservations.self, stored).first)
        #expect(sample.value == 97)
        #expect(sample.metadata["ghs.recordNumber"] == "1")
        #expect(berlinTime(sample.start) == "2026-11-18T07:45:00+01:00")
    }

    @Test func testDataGivesNoSample() throws {
        // flags 0x0009: type and measurement status 0x0010 (test data)
        let test = hex("03 01 1100 0900 b84b0200 1000 2002 60000000")
        #expect(try samples(LiveHealthObservations.self, test).isEmpty)
    }
}
