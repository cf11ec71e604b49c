import BridgeCore
import DeviceProfiles
import Foundation
import FrameDecoding
import GATTDecoding

/// Broadcast devices (scales that advertise their readings): repeats collapsed, one sample per quantity per
/// weigh-in.
extension IngestPipeline {
    // MARK: - Broadcast scales

    func broadcast(
        _ bytes: [UInt8],
        format: DeviceProfile.ServiceData,
        time: Date,
        state: inout DeviceState,
        output: inout Output
    ) {
        broadcast(
            bytes,
            key: "serviceData \(format.uuid)",
            label: "service data",
            time: time,
            state: &state,
            output: &output
        ) { pipeline, state, output in
            if let frames = format.frames, let envelope = format.envelope {
                return pipeline.envelopeSamples(
                    bytes,
                    envelope: envelope,
                    frames: frames,
                    source: format.uuid,
                    time: time,
                    state: &state,
                    output: &output
                )
            }
            if let frames = format.frames {
                return pipeline.frameSamples(
                    bytes,
                    frames: frames,
                    source: format.uuid,
                    time: time,
                    state: &state,
                    output: &output
                )
            }
            guard let decoder = format.decoder else { return nil }
            let producing: any SampleProducing
            do {
                producing = try decoder.decode(bytes)
            } catch {
                output.issues.append(
                    PipelineIssue(
                        severity: .badEvent,
                        device: state.identity.key,
                        time: time,
                        message: "malformed advertisement: \(String(describing: error))"
                    )
                )
                return nil
            }
            let context = SampleContext(
                receivedAt: time,
                timeZone: pipeline.configuration.timeZone,
                source: SampleSource(
                    kind: .device,
                    characteristic: format.uuid,
                    decoder: decoder.identifier,
                    device: state.identity
                ),
                payload: bytes
            )
            return producing.samples(in: consume context)
        }
    }

    /// One advertised value of a broadcast device (Service Data or Manufacturer Data): repeats are collapsed, a
    /// gap longer than the profile's `weighInGap` ends the weigh-in, and a value without samples (unstable, load
    /// removed) ends a weigh-in that gave its samples; each quantity is stored once per weigh-in (with the
    /// `broadcastStream` quirk, every changed value stores its samples).
    /// - Parameter decode: the value's samples, nil when it was refused (the issue is already reported).
    func broadcast(
        _ bytes: [UInt8],
        key: String,
        label: String,
        time: Date,
        state: inout DeviceState,
        output: inout Output,
        decode: (IngestPipeline, inout DeviceState, inout Output) -> [SampleDraft]?
    ) {
        let gap = state.profile?.tuning.weighInGap ?? 30
        if let last = state.session.lastAdvertisement, time.timeIntervalSince(last) > gap {
            endSession(&state, output: &output)
        }
        state.session.lastAdvertisement = time
        if state.session.lastServiceData[key] == bytes { return }  // a repeat
        state.session.lastServiceData[key] = bytes
        guard bytes.count <= Self.maximumValueLength else {
            output.issues.append(
                PipelineIssue(
                    severity: .badEvent,
                    device: state.identity.key,
                    time: time,
                    message: "\(label) of \(bytes.count) bytes is longer than \(Self.maximumValueLength) bytes: refused"
                )
            )
            return
        }
        guard let samples = decode(self, &state, &output) else { return }
        if state.profile?.quirks.broadcastStream == true {
            // A continuous sensor: each changed value is a new reading.
            accept(samples, live: true, state: &state, output: &output)
            return
        }
        if samples.isEmpty {
            // Unstable or load removed: a weigh-in that already gave its samples is over.
            if !state.session.emittedTypes.isEmpty { endSession(&state, output: &output) }
            return
        }
        let fresh = samples.filter { !state.session.emittedTypes.contains($0.type) }
        state.session.emittedTypes.formUnion(fresh.map(\.type))
        accept(fresh, live: true, state: &state, output: &output)
    }
}
