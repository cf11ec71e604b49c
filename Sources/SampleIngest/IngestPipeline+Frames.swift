import BridgeCore
import BridgeFoundation
import DeviceProfiles
import Foundation
import FrameDecoding
import GATTDecoding
import Logging

/// Values read by a profile's own frames (`frames`), with merges, repeats and several frames in one value.
extension IngestPipeline {
    /// A characteristic value read by frames: several frames of `frameLength` bytes back to back are each
    /// decoded in order, as if they had come alone.
    func framedValue(
        _ value: CharacteristicValue,
        frames: FrameSet,
        frameLength: Int?,
        time: Date,
        state: inout DeviceState,
        output: inout Output
    ) {
        let address = state.identity.address ?? state.identity.key
        let profile = state.profile?.id ?? "?"
        var pieces = [value.bytes[...]]
        if let length = frameLength {
            pieces = stride(from: 0, to: value.bytes.count, by: length).map {
                value.bytes[$0..<min($0 + length, value.bytes.count)]
            }
            if let last = pieces.last, last.count < length {
                pieces.removeLast()
                output.issues.append(
                    PipelineIssue(
                        severity: .warning,
                        device: address,
                        time: time,
                        message: "profile \(profile): the last \(last.count) byte(s) of a "
                            + "\(value.bytes.count)-byte value on \(value.characteristic) are shorter than its "
                            + "frameLength \(length): not decoded (\(Self.spacedHex(Array(last))))"
                    )
                )
            }
        }
        for (position, piece) in pieces.enumerated() {
            guard
                var samples = frameSamples(
                    Array(piece),
                    frames: frames,
                    source: value.characteristic,
                    time: time,
                    state: &state,
                    output: &output
                )
            else { continue }
            // Two equal frames of one value are two readings: the position keeps their ids apart.
            if frameLength != nil {
                for index in samples.indices where samples[index].source.characteristic == value.characteristic {
                    samples[index].index = position
                }
            }
            // A final frame shortly after an intermediate one (a weigh-in settling) is live, as with decoders.
            let live =
                state.session.lastIntermediate.map { time.timeIntervalSince($0) <= configuration.liveWindow }
                ?? false
            if live, !samples.isEmpty { state.session.lastIntermediate = nil }
            accept(samples, live: live, state: &state, output: &output)
        }
    }

    /// A value read by a profile's frames: decoded by the first frame that selects it; its samples, or empty for
    /// an intermediate frame, a frame waiting for its merge partner or a value no frame selects; nil when the
    /// value was refused (checksum, a field outside the value; reported as a warning naming profile and frame).
    func frameSamples(
        _ bytes: [UInt8],
        frames: FrameSet,
        source: BluetoothUUID?,
        time: Date,
        state: inout DeviceState,
        output: inout Output
    ) -> [SampleDraft]? {
        let profile = state.profile?.id ?? "?"
        let address = state.identity.address ?? state.identity.key
        var samples: [SampleDraft] = []
        expireMerges(before: time, state: &state, into: &samples, output: &output)
        let selected: (frame: Frame, decoded: DecodedFrame)?
        do {
            selected = try frames.decode(bytes)
        } catch {
            output.issues.append(
                PipelineIssue(
                    severity: .warning,
                    device: address,
                    time: time,
                    message: "profile \(profile): \(error.description) in \(Self.spacedHex(bytes)): value refused"
                )
            )
            return nil
        }
        guard let (frame, decoded) = selected else {
            // Something else the device said (e.g. settling values no frame reads): a weigh-in in progress.
            state.session.lastFinalFrames = [:]
            logger.debug(
                "no frame selects the value",
                metadata: [
                    "device.address": "\(address)", "profile": "\(profile)", "bytes": "\(Self.spacedHex(bytes))",
                ]
            )
            return samples
        }
        logger.debug(
            "frame",
            metadata: [
                "device.address": "\(address)", "frame": "\(frame.name)", "final": "\(decoded.isFinal)",
                "fields": "\(JSONValue.object(decoded.json).serialized())",
            ]
        )
        guard decoded.isFinal else {
            state.session.lastIntermediate = time
            state.session.lastFinalFrames = [:]
            return samples
        }
        if let profile = state.profile, profile.quirks.finalRepeats {
            // The same final frame again, with nothing else of the weigh-in between: the device repeating it.
            let key = "\(source?.description ?? "-") \(frame.name)"
            let previous = state.session.lastFinalFrames[key]
            state.session.lastFinalFrames[key] = (bytes, time)
            if let previous, previous.bytes == bytes, time.timeIntervalSince(previous.time) <= profile.tuning.weighInGap
            {
                logger.debug(
                    "repeated final frame: not stored again",
                    metadata: ["device.address": "\(address)", "profile": "\(profile.id)", "frame": "\(frame.name)"]
                )
                return samples
            }
        }
        let context = SampleContext(
            receivedAt: time,
            timeZone: state.profile?.quirks.deviceTimeIsUTC == true ? Self.utc : configuration.timeZone,
            source: SampleSource(
                kind: .device,
                characteristic: source,
                decoder: "frame:\(frame.name)",
                device: state.identity
            ),
            payload: bytes
        )
        let live =
            state.session.lastIntermediate.map { time.timeIntervalSince($0) <= configuration.liveWindow } ?? false
        let waiting = FrameWaiting(frame: frame, decoded: decoded, context: context, time: time, live: live)
        if let merge = frame.merge {
            if let partner = state.session.recentFrames[merge.with], waiting.accepts(partner.decoded, at: partner.time)
            {
                produce(waiting, merged: partner.decoded, into: &samples, state: &state, output: &output)
            } else {
                state.session.waitingForMerge.append(waiting)
            }
        } else {
            produce(waiting, merged: nil, into: &samples, state: &state, output: &output)
            var stillWaiting: [FrameWaiting] = []
            for other in state.session.waitingForMerge {
                if other.frame.merge?.with == frame.name, other.accepts(decoded, at: time) {
                    produce(other, merged: decoded, into: &samples, state: &state, output: &output)
                } else {
                    stillWaiting.append(other)
                }
            }
            state.session.waitingForMerge = stillWaiting
        }
        state.session.recentFrames[frame.name] = (decoded, time)
        return samples
    }

    /// `10 01 A8`: bytes as profiles write them.
    static func spacedHex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: " ")
    }

    /// The samples of a final frame, with its merge partner's fields when it came; notes become warnings.
    func produce(
        _ waiting: FrameWaiting,
        merged: DecodedFrame?,
        into samples: inout [SampleDraft],
        state: inout DeviceState,
        output: inout Output
    ) {
        var notes: [String] = []
        waiting.frame.appendSamples(
            of: waiting.decoded,
            merged: merged,
            in: waiting.context,
            to: &samples,
            notes: &notes
        )
        for note in notes {
            output.issues.append(
                PipelineIssue(
                    severity: .warning,
                    device: state.identity.address ?? state.identity.key,
                    time: waiting.time,
                    message: "frame \(waiting.frame.name): \(note); no sample for it"
                )
            )
        }
    }

    /// Frames whose merge partner did not come within their window give their own samples (never lost).
    func expireMerges(
        before time: Date?,
        state: inout DeviceState,
        into samples: inout [SampleDraft],
        output: inout Output
    ) {
        guard !state.session.waitingForMerge.isEmpty else { return }
        var stillWaiting: [FrameWaiting] = []
        for waiting in state.session.waitingForMerge {
            if let time, time.timeIntervalSince(waiting.time) <= waiting.frame.merge?.window ?? 0 {
                stillWaiting.append(waiting)
            } else {
                produce(waiting, merged: nil, into: &samples, state: &state, output: &output)
            }
        }
        state.session.waitingForMerge = stillWaiting
    }
}
