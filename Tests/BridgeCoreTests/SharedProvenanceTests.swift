import BridgeCore
import Foundation
import GATTDecoding
import Testing

/// Samples of one payload share their source, payload, receive time and metadata; changing one sample or the
/// context must never show through in another.
@Suite struct SharedProvenanceTests {
    private let received = Date(timeIntervalSince1970: 1_700_000_000)
    // 72 bpm, contact detected, 300 kJ, RR 1024 and 768 (1/1024 s)
    private let payload: [UInt8] = [0x1E, 0x48, 0x2C, 0x01, 0x00, 0x04, 0x00, 0x03]

    private func context() -> SampleContext {
        SampleContext(
            receivedAt: received,
            timeZone: .gmt,
            source: .device(HeartRateMeasurement.self),
            payload: payload
        )
    }

    @Test func changingOneSamplesMetadataLeavesItsSiblingsAlone() throws {
        var samples = try HeartRateMeasurement.decode(payload).samples(in: context())
        #expect(samples.count == 3)
        let expected = ["sensorContact": "detected", "energyExpendedKJ": "300"]
        #expect(samples.allSatisfy { $0.metadata == expected })
        samples[1].metadata["note"] = "ectopic beat"
        samples[2].rawPayload = [0x00]
        #expect(samples[1].metadata["note"] == "ectopic beat")
        #expect(samples[0].metadata == expected)
        #expect(samples[2].metadata == expected)
        #expect(samples[0].rawPayload == payload)
        #expect(samples[1].rawPayload == payload)
        #expect(samples[2].rawPayload == [0x00])
        #expect(samples[0] != samples[1])
    }

    @Test func aSampleKeepsTheMetadataItWasMadeWith() throws {
        var context = context()
        context.metadata = ["userID": "1"]
        let first = try #require(context.sample(.bodyMass, value: 70, unit: .kilogram))
        let copy = context
        context.metadata["userID"] = "2"
        context.receivedAt = received.addingTimeInterval(60)
        let second = try #require(context.sample(.bodyMass, value: 71, unit: .kilogram))
        #expect(first.metadata == ["userID": "1"])
        #expect(first.receivedAt == received)
        #expect(copy.metadata == ["userID": "1"])
        #expect(copy.receivedAt == received)
        #expect(second.metadata == ["userID": "2"])
        #expect(second.receivedAt == received.addingTimeInterval(60))
        #expect(QuantitySample(first).id != QuantitySample(second).id)
    }

    @Test func appendingKeepsWhatIsAlreadyInTheBuffer() throws {
        let existing = try #require(context().sample(.bodyTemperature, value: 37, unit: .celsius))
        var buffer = [existing]
        try HeartRateMeasurement.decode(payload).appendSamples(in: context(), to: &buffer)
        #expect(buffer.count == 4)
        #expect(buffer[0] == existing)
        #expect(buffer.dropFirst().map(\.type) == [.heartRate, .rrInterval, .rrInterval])
        #expect(buffer[0].metadata.isEmpty)
    }
}
