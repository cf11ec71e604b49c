import BridgeCore
import BridgeFoundation
import DeviceProfiles
import Foundation
import FrameDecoding

/// Advertised values inside a container (a profile's `envelope`): opened (decrypted with the device's bind key
/// when encrypted), and each object read by the entry's frames.
extension IngestPipeline {
    /// The samples of one enveloped value; nil when it could not be opened (said once per device and reason, and
    /// nothing is stored).
    func envelopeSamples(
        _ bytes: [UInt8],
        envelope: DeviceProfile.ServiceData.Envelope,
        frames: FrameSet,
        source: BluetoothUUID,
        time: Date,
        state: inout DeviceState,
        output: inout Output
    ) -> [SampleDraft]? {
        let address = state.identity.address ?? state.identity.key
        let objects: [[UInt8]]
        switch envelope {
        case .miBeacon:
            do {
                objects = try MiBeacon(bytes, address: address, bindKey: configuration.bindKeys[address]).objects
                    .map(\.bytes)
            } catch {
                reportOnce(
                    envelopeProblem(error, address: address, profile: state.profile?.id ?? "?"),
                    time: time,
                    state: &state,
                    output: &output
                )
                return nil
            }
        }
        var samples: [SampleDraft] = []
        for object in objects {
            guard
                let drafts = frameSamples(
                    object,
                    frames: frames,
                    source: source,
                    time: time,
                    state: &state,
                    output: &output
                )
            else { continue }
            samples += drafts
        }
        return samples
    }

    /// What to tell the user about an advertisement that could not be opened.
    func envelopeProblem(_ error: MiBeacon.Failure, address: String, profile: String) -> String {
        let lead = "profile \(profile): encrypted MiBeacon advertisement of \(address)"
        switch error {
        case .noBindKey:
            return "\(lead) and no bind key for it: nothing is stored until its key is in the bind-keys file "
                + "(docs/devices.md, 'Bind keys'); said once"
        case .authenticationFailed:
            return "\(lead) does not authenticate with its bind key (a wrong key, or changed bytes): nothing is "
                + "stored; said once"
        default:
            return "profile \(profile): MiBeacon advertisement of \(address) refused: \(error.description); said once"
        }
    }

    /// Appends a warning unless the same one was already given for this device.
    func reportOnce(_ message: String, time: Date, state: inout DeviceState, output: inout Output) {
        guard state.reportedEnvelopeFailures.insert(message).inserted else { return }
        output.issues.append(
            PipelineIssue(severity: .warning, device: state.identity.key, time: time, message: message)
        )
    }
}
