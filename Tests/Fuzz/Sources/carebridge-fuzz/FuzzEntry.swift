import BridgeCore
import BridgeFoundation
import CarePlan
import DeviceProfiles
import Foundation
import FrameDecoding
import GATTDecoding
import Logging
import SessionReplay

/// Which parser a run exercises: `CAREBRIDGE_FUZZ` = recording (default), json, time, plan, profile, frames,
/// decoders. `frames`: a profile, a 0x00 byte, then values separated by 0x00; whatever loads decodes every value
/// through its frames without trapping, and every decoded number is finite.
enum FuzzTarget: String {
    case recording, json, time, plan, profile, frames, decoders

    static let current =
        FuzzTarget(rawValue: ProcessInfo.processInfo.environment["CAREBRIDGE_FUZZ"] ?? "") ?? .recording
    static let utc = TimeZone(identifier: "UTC")!
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    /// The recording file each input is written to (the reader reads files).
    static let recordingPath = FileManager.default.temporaryDirectory
        .appendingPathComponent("carebridge-fuzz-\(getpid()).jsonl").path
    static let header = Array(
        #"{"format": "carebridge-recording", "version": 1, "recordedAt": "2026-11-20T07:58:00+01:00"}"#.utf8 + [0x0A]
    )
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    switch FuzzTarget.current {
    case .json:
        _ = bytes.withUnsafeBufferPointer { try? JSONValue.parse(utf8: $0) }
    case .time:
        let text = String(decoding: bytes, as: UTF8.self)
        if let date = try? Timestamp.parse(text, in: FuzzTarget.berlin, now: Date()) {
            precondition(Timestamp.isSupported(date), "unsupported instant from '\(text)'")
            _ = Timestamp.utcKey(date)
        }
    case .plan:
        _ = try? CarePlanDocument.parse(Data(bytes), path: "fuzz.json", bridgeZone: FuzzTarget.berlin)
    case .profile:
        _ = try? DeviceProfile(json: String(decoding: bytes, as: UTF8.self))
    case .frames:
        let parts = bytes.split(separator: 0, omittingEmptySubsequences: false)
        guard let text = parts.first,
            let profile = try? DeviceProfile(json: String(decoding: text, as: UTF8.self))
        else { return 0 }
        for characteristic in profile.characteristics {
            guard let frames = characteristic.frames else { continue }
            for value in parts.dropFirst() {
                guard let (_, decoded) = try? frames.decode(Array(value)) else { continue }
                for field in decoded.fields {
                    if let number = field.value?.number { precondition(number.isFinite, "\(field) is not finite") }
                }
                _ = decoded.variables
            }
        }
    case .decoders:
        guard let first = bytes.first else { return 0 }
        let decoders = DecoderCatalog.all
        let decoder = decoders[Int(first) % decoders.count]
        guard let payload = try? decoder.decode(Array(bytes.dropFirst())) else { return 0 }
        if let producing = payload as? any SampleProducing {
            let context = SampleContext(
                receivedAt: Date(timeIntervalSince1970: 1_795_158_000),
                timeZone: FuzzTarget.berlin,
                source: SampleSource(kind: .device, characteristic: nil, decoder: decoder.identifier, device: nil),
                payload: Array(bytes.dropFirst())
            )
            var samples: [SampleDraft] = []
            producing.appendSamples(in: context, to: &samples)
            for sample in samples { _ = QuantitySample(sample).id }
        }
    case .recording:
        // The input is everything after a valid header: lines of events.
        guard
            FileManager.default.createFile(atPath: FuzzTarget.recordingPath, contents: Data(FuzzTarget.header + bytes))
        else { return 0 }
        guard let reader = try? RecordingReader(path: FuzzTarget.recordingPath, logger: Logger(label: "fuzz")) else {
            return 0
        }
        while let item = reader.next() {
            if case .event(let event) = item {
                precondition(Timestamp.isSupported(event.event.time), "event outside the supported range")
                _ = Timestamp.utcKey(event.event.time)
            }
        }
    }
    return 0
}
