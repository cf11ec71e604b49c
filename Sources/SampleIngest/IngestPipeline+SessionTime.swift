import BridgeCore
import DeviceProfiles
import Foundation
import GATTDecoding
import Logging

/// Session time: samples with a device time wait for the end of their session, when the session's clock offset is
/// decided and applied; then the safety stage and the id.
extension IngestPipeline {
    func accept(_ samples: [SampleDraft], live: Bool, state: inout DeviceState, output: inout Output) {
        let clockUnreliable = state.profile?.quirks.clockUnreliable ?? false
        for var sample in samples {
            if clockUnreliable || sample.deviceTime == nil {
                if clockUnreliable {
                    sample.end = sample.receivedAt.addingTimeInterval(sample.end.timeIntervalSince(sample.start))
                    sample.start = sample.receivedAt
                }
                emit(sample, state: &state, output: &output)
            } else {
                state.session.pending.append(PendingSample(sample: sample, live: live))
            }
        }
    }

    /// Hands a finished sample on, after the safety stage (``SampleScreening``): LO/HI get the device's limit,
    /// implausible or status-invalid samples are quarantined (kept, reported, never used).
    func emit(_ sample: SampleDraft, state: inout DeviceState, output: inout Output) {
        // A value the store cannot hold (a profile's scale or a unit conversion overflowed) refuses this sample
        // alone, naming its profile; the batch it would join, and other recordings' samples, are stored.
        guard sample.value.isFinite || (sample.comparator != nil && !sample.value.isNaN) else {
            output.issues.append(
                PipelineIssue(
                    severity: .badEvent,
                    device: state.identity.address ?? state.identity.key,
                    time: sample.receivedAt,
                    message: "profile \(state.profile?.id ?? "?"): \(sample.type.title) value \(sample.value) is not a "
                        + "finite number: sample refused"
                )
            )
            return
        }
        var draft = sample
        // Samples made during this event already carry the identity: writing it again would give each sample a
        // provenance of its own (copy on write) and so hash its payload's key prefix once per sample instead of
        // once per payload. Samples that waited for the session's end get what the device said meanwhile.
        if draft.source.device != state.identity { draft.source.device = state.identity }
        state.screening.screen(&draft)
        // Settled: the id is derived once here and carried to the store, publishers and exports.
        let sample = QuantitySample(draft)
        let address = state.identity.address ?? state.identity.key
        if let reason = sample.quarantineReason {
            output.issues.append(
                PipelineIssue(
                    severity: .warning,
                    device: address,
                    time: sample.receivedAt,
                    message: "quarantined \(sample.type.title) sample \(sample.id.uuidString.lowercased()): \(reason)"
                )
            )
        } else if let comparator = sample.comparator {
            let limit =
                sample.value.isFinite
                ? "\(comparator.rawValue) \(SampleScreening.format(sample.value)) \(sample.unit)" : "limit unknown"
            output.issues.append(
                PipelineIssue(
                    severity: .warning,
                    device: address,
                    time: sample.receivedAt,
                    message:
                        "\(sample.type.title) \(comparator.label) (\(comparator.interpretationDisplay.lowercased()), "
                        + "\(limit)): stored as an out-of-range reading"
                )
            )
        }
        state.sampleCount += 1
        output.samples.append(sample)
    }

    /// Ends the device's session: decides whether its clock was wrong, corrects and emits the waiting samples.
    func endSession(_ state: inout DeviceState, output: inout Output) {
        // Frames still waiting for their merge partner give their own samples (never lost).
        let waiting = state.session.waitingForMerge
        state.session.waitingForMerge = []
        for item in waiting {
            var samples: [SampleDraft] = []
            produce(item, merged: nil, into: &samples, state: &state, output: &output)
            accept(samples, live: item.live, state: &state, output: &output)
        }
        var session = state.session
        state.session = Session()
        for first in session.firstPacket.values.sorted(by: { $0.time < $1.time }) {
            output.issues.append(
                PipelineIssue(
                    severity: .warning,
                    device: state.identity.key,
                    time: first.time,
                    message: "dropped a multi-packet value whose continuation never came"
                )
            )
        }
        releaseAwaitingContext(&session)
        guard !session.pending.isEmpty else { return }
        var offset = clockOffset(session.pending)
        // A device clock read at connect is a measurement, not an estimate: it corrects the session when the
        // clock is evidently wrong, and travels with every sample of the session either way.
        if offset != nil, let measured = session.measuredClockOffset { offset = measured }
        if let offset {
            logger.notice(
                "device clock is off; correcting this session",
                metadata: ["device.address": "\(state.identity.key)", "offset.seconds": "\(offset)"]
            )
        }
        for pending in session.pending {
            var sample = pending.sample
            if let measured = session.measuredClockOffset {
                sample.metadata["deviceClockOffset"] = String(Int(measured))
            }
            if let offset {
                sample.start = sample.start.addingTimeInterval(offset)
                sample.end = sample.end.addingTimeInterval(offset)
                sample.clockOffset = offset
            }
            emit(sample, state: &state, output: &output)
        }
    }

    /// The session's clock offset in whole seconds, when the device clock is evidently wrong
    /// (``PipelineConfiguration/clockOffset(of:lastLive:)``).
    func clockOffset(_ pending: [PendingSample]) -> Double? {
        configuration.clockOffset(of: pending.map(\.sample), lastLive: pending.last(where: \.live)?.sample)
    }
}
