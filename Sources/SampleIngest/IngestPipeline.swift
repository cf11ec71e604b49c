public import BridgeCore
import BridgeFoundation
public import DeviceProfiles
import DeviceSessions
import Foundation
import FrameDecoding
import GATTDecoding
public import Logging

/// The ingestion pipeline: transport events → device profile → decoder → samples with device identity.
///
/// A value type fed one event at a time; it never blocks and does no I/O, so live transports, replay and
/// tests drive it alike (``PipelineRunner`` connects it to a transport and a sink). Which decoder reads a
/// value is the claiming profile's choice, never the UUID's alone.
///
/// What it does on top of decoding:
/// - identity: the advertised name and the Device Information strings go onto every sample of the device;
/// - broadcast scales: one sample per quantity per stabilised weigh-in; repeated adverts are collapsed and
///   adverts without samples (unstable, load removed) end a weigh-in that produced samples;
/// - time: samples with a device time wait until the session ends (disconnect, reconnect, end of a
///   weigh-in, end of input); if the device clock is evidently wrong the session's offset is estimated and
///   applied to every timed sample of the session (``QuantitySample/clockOffset``);
/// - multi-packet values are merged before decoding (by their characteristic, ``MultiPacketPayload``); glucose
///   measurements wait for their context (same sequence number); intermediate values are decoded but never
///   become samples.
///
/// What a value means comes from its payload type, never from its bytes: each characteristic is resolved when
/// its profile loads into a typed role (``DeviceProfile/Characteristic/Reading``) whose payload type is known to
/// play it, and the value is decoded straight into that role's protocol (``SampleProducing``,
/// ``SampleAnnotating``, ``ControlPointMessage``, ``DeviceIdentityString``, ``DeviceClockReading``): a payload is
/// never asked what it is. Adding a device touches a decoder and a profile, never this type.
/// Per value the stages are: length check → entry of the claiming profile → multi-packet merge → quirk overlay
/// (``QuirkOverlay``, the profile's vendor fixes) → decode → role. Session steps (writes and awaited answers,
/// ``SessionMachine``) run in the transport; their answers arrive here as ordinary values.
///
/// The stages live by concern: dispatch here, frames (`+Frames`), broadcast devices (`+Broadcast`), records
/// that wait for another value (`+Records`) and session time (`+SessionTime`).
public struct IngestPipeline {
    public let catalog: DeviceCatalog
    public var configuration: PipelineConfiguration
    let logger: Logger
    private var devices: [String: DeviceState] = [:]
    /// Addresses in order of first appearance, so output never depends on hashing.
    private var order: [String] = []
    /// Battery levels read since the last ``takeBatteryReadings()``.
    private var batteries: [BatteryReading] = []

    public init(catalog: DeviceCatalog, configuration: PipelineConfiguration, logger: Logger) {
        self.catalog = catalog
        self.configuration = configuration
        self.logger = logger
    }

    /// What the pipeline knows about each device it has seen, in order of first appearance.
    public var deviceSummaries: [DeviceSummary] {
        order.compactMap { address in
            guard let state = devices[address] else { return nil }
            return DeviceSummary(
                identity: state.identity,
                profile: state.profile?.id,
                samples: state.sampleCount,
                downloadedRecords: state.downloadedRecords
            )
        }
    }

    /// Feeds one event.
    /// - Parameters:
    ///   - samples: finished samples are appended here.
    ///   - issues: bad events and warnings are appended here.
    public mutating func ingest(
        _ event: TransportEvent,
        samples: inout [QuantitySample],
        issues: inout [PipelineIssue]
    ) {
        // Taken out of the dictionary while it changes, so its buffers are not copied on write.
        var state = devices.removeValue(forKey: event.device) ?? newDevice(event.device)
        var output = Output(samples: samples, issues: issues)
        samples = []
        issues = []
        handle(event, state: &state, output: &output)
        devices[event.device] = state
        samples = output.samples
        issues = output.issues
        batteries += output.batteries
    }

    /// Whether battery levels were read since the last ``takeBatteryReadings()``.
    public var hasBatteryReadings: Bool { !batteries.isEmpty }

    /// The battery levels read since the last call, in order; the sink keeps them as the devices' levels.
    public mutating func takeBatteryReadings() -> [BatteryReading] {
        defer { batteries.removeAll() }
        return batteries
    }

    /// Ends every open session (end of a recording, shutdown) and emits what was waiting.
    public mutating func finish(samples: inout [QuantitySample], issues: inout [PipelineIssue]) {
        var output = Output(samples: samples, issues: issues)
        samples = []
        issues = []
        for address in order {
            guard var state = devices[address] else { continue }
            endSession(&state, output: &output)
            devices[address] = state
        }
        samples = output.samples
        issues = output.issues
    }

    private mutating func newDevice(_ address: String) -> DeviceState {
        order.append(address)
        var state = DeviceState(identity: DeviceIdentity(address: address))
        state.screening = SampleScreening(plausibility: configuration.plausibility)
        return state
    }

    /// The zone of a device whose profile says its clock is UTC (`deviceTimeIsUTC`).
    static let utc = TimeZone(identifier: "UTC")!

    /// The ATT maximum length of an attribute value (Core Specification Vol 3 Part F §3.2.9).
    public static let maximumValueLength = 512

    // MARK: - Events

    func handle(_ event: TransportEvent, state: inout DeviceState, output: inout Output) {
        switch event.kind {
        case .advertisement(let advertisement):
            if let name = advertisement.name, !name.isEmpty { state.identity.name = name }
            claim(&state, advertisement: advertisement, time: event.time)
            guard let profile = state.profile, profile.linkMode == .broadcast else { return }
            for format in profile.serviceData {
                guard let bytes = advertisement.serviceData[format.uuid] else { continue }
                broadcast(bytes, format: format, time: event.time, state: &state, output: &output)
            }
            for format in profile.manufacturerData {
                guard let bytes = advertisement.manufacturerData[format.company] else { continue }
                broadcast(
                    bytes,
                    key: "manufacturerData \(format.company)",
                    label: "manufacturer data",
                    time: event.time,
                    state: &state,
                    output: &output
                ) { pipeline, state, output in
                    pipeline.frameSamples(
                        bytes,
                        frames: format.frames,
                        source: nil,
                        time: event.time,
                        state: &state,
                        output: &output
                    )
                }
            }
        case .connected:
            endSession(&state, output: &output)
            state.recordReader = state.profile?.makeRecordReader()
        case .servicesDiscovered(let services):
            if state.profile == nil {
                claim(&state, advertisement: Advertisement(serviceUUIDs: services.keys.sorted()), time: event.time)
            }
        case .value(let value):
            characteristicValue(value, time: event.time, state: &state, output: &output)
        case .written(let write):
            // What the bridge asked the device (a session step); the answers arrive as values. A record reader
            // whose responses do not say what they answer keeps the request.
            if var reader = state.recordReader, reader.reads(write.characteristic) {
                reader.wrote(write)
                state.recordReader = reader
            }
            logger.debug(
                "wrote",
                metadata: ["device.address": "\(event.device)", "characteristic": "\(write.characteristic)"]
            )
        case .download(.started):
            // The session asked for stored records: the measurements until it ends are records.
            state.session.downloading = true
        case .download(.ended):
            state.session.downloading = false
            releaseAwaitingContext(&state.session)
        case .disconnected(let reason):
            logger.debug("disconnected", metadata: ["device.address": "\(event.device)", "reason": "\(reason)"])
            endSession(&state, output: &output)
        case .error(let message):
            output.issues.append(
                PipelineIssue(
                    severity: .warning,
                    device: event.device,
                    time: event.time,
                    message: "transport error: \(message)"
                )
            )
        }
    }

    func claim(_ state: inout DeviceState, advertisement: Advertisement, time: Date) {
        guard state.profile == nil, let profile = catalog.profile(for: advertisement) else { return }
        state.profile = profile
        state.identity.profile = profile.id
        state.recordReader = profile.makeRecordReader()
        state.screening = SampleScreening(
            plausibility: configuration.plausibility.overriding(profile.plausibility),
            measurementRanges: profile.measurementRanges
        )
        logger.info(
            "device claimed",
            metadata: ["device.address": "\(state.identity.key)", "profile": "\(profile.id)"]
        )
    }

    func characteristicValue(
        _ value: CharacteristicValue,
        time: Date,
        state: inout DeviceState,
        output: inout Output
    ) {
        let address = state.identity.address ?? state.identity.key
        func bad(_ message: String) {
            output.issues.append(PipelineIssue(severity: .badEvent, device: address, time: time, message: message))
        }
        guard value.bytes.count <= Self.maximumValueLength else {
            bad(
                "characteristic value of \(value.bytes.count) bytes for \(value.characteristic) is longer than the "
                    + "ATT maximum of \(Self.maximumValueLength) bytes: refused"
            )
            return
        }
        guard let profile = state.profile else {
            bad("no device profile claims this device (no matching advertisement or services seen)")
            return
        }
        if var reader = state.recordReader, reader.reads(value.characteristic) {
            streamedRecords(value, reader: &reader, time: time, state: &state, output: &output)
            state.recordReader = reader
            return
        }
        guard let entry = profile.characteristic(value.characteristic) else {
            bad("unknown characteristic \(value.characteristic) for profile \(profile.id)")
            return
        }
        /// The value in the standard layout (the entry's quirk overlay), decoded by `type`; nil when malformed.
        func decoded<Payload: GATTPayload>(_ bytes: [UInt8], as type: Payload.Type) -> Payload? {
            do {
                return try type.decode(entry.overlay?.standardised(bytes) ?? bytes)
            } catch {
                bad("malformed payload: \(error.description)")
                return nil
            }
        }
        switch entry.reading {
        case .measurement(let type, let packets):
            var bytes = value.bytes
            if let packets {
                guard
                    let merged = multiPacket(
                        bytes,
                        on: value.characteristic,
                        packets: packets,
                        time: time,
                        state: &state,
                        output: &output
                    )
                else { return }
                bytes = merged
            }
            // The device's own bytes are kept as the sample's payload; the decoder reads them in the standard
            // layout when the profile names vendor quirks.
            guard let payload = decoded(bytes, as: type) else { return }
            measurement(
                payload,
                received: bytes,
                from: value.characteristic,
                time: time,
                state: &state,
                output: &output
            )
        case .intermediate(let decoder):
            guard decoded(value.bytes, as: decoder.type) != nil else { return }
            state.session.lastIntermediate = time
        case .context(let type):
            guard let context = decoded(value.bytes, as: type) else { return }
            attachContext(context, time: time, state: &state, output: &output)
        case .controlPoint(let type):
            // Checked only: the session machine tells when a download starts and ends (`.download` events).
            _ = decoded(value.bytes, as: type)
        case .identity(let type):
            decoded(value.bytes, as: type)?.apply(to: &state.identity)
        case .clock(let type):
            guard let reading = decoded(value.bytes, as: type) else { return }
            let zone = profile.quirks.deviceTimeIsUTC || reading.deviceClockIsUTC ? Self.utc : configuration.timeZone
            guard let device = reading.deviceClock.date(in: zone) else {
                bad("\(type.name): not a usable device time")
                return
            }
            state.session.measuredClockOffset = time.timeIntervalSince(device).rounded()
        case .battery(let type):
            guard let reading = decoded(value.bytes, as: type) else { return }
            guard let percent = reading.batteryPercent else {
                logger.info(
                    "battery level outside 0-100 %: not kept",
                    metadata: ["device.address": "\(address)", "value": "\(value.bytes)"]
                )
                return
            }
            output.batteries.append(BatteryReading(device: state.identity, level: percent, at: time))
        case .info(let decoder):
            guard let reading = decoded(value.bytes, as: decoder.type) else { return }
            logger.debug(
                "value",
                metadata: [
                    "device.address": "\(address)", "decoder": "\(decoder.identifier)",
                    "fields": "\(JSONValue.object(reading.fields).serialized())",
                ]
            )
        case .frames(let frames, let frameLength):
            framedValue(value, frames: frames, frameLength: frameLength, time: time, state: &state, output: &output)
        case .written:
            logger.debug(
                "value of a written characteristic",
                metadata: ["device.address": "\(address)", "characteristic": "\(value.characteristic)"]
            )
        }
    }

    /// A measurement's samples: values without a value reported, live when shortly after an intermediate value,
    /// held back when the context that annotates them follows.
    /// - Parameter received: the device's own bytes (the multi-packet merge, before any quirk overlay).
    private func measurement(
        _ payload: any SampleProducing,
        received: [UInt8],
        from characteristic: BluetoothUUID,
        time: Date,
        state: inout DeviceState,
        output: inout Output
    ) {
        guard let profile = state.profile else { return }
        let address = state.identity.address ?? state.identity.key
        if state.session.downloading { state.downloadedRecords += 1 }
        // Only payloads that can hold a special value build their fields to look for one (a heart-rate
        // notification's fields cost more than decoding it).
        let noValues = type(of: payload).fieldsMayHoldSpecialValues ? NoValueField.find(in: payload.fields) : []
        for noValue in noValues {
            output.issues.append(
                PipelineIssue(
                    severity: .warning,
                    device: address,
                    time: time,
                    message: "\(type(of: payload).name): \(noValue.field) is \(noValue.value) "
                        + "(\(noValue.reason)); no value for it"
                )
            )
        }
        for unmapped in payload.unmappedValues {
            output.issues.append(
                PipelineIssue(
                    severity: .warning,
                    device: address,
                    time: time,
                    message: "\(type(of: payload).name): \(unmapped)"
                )
            )
        }
        let context = SampleContext(
            receivedAt: time,
            timeZone: profile.quirks.deviceTimeIsUTC ? Self.utc : configuration.timeZone,
            source: SampleSource(
                kind: .device,
                characteristic: characteristic,
                decoder: type(of: payload).identifier,
                device: state.identity
            ),
            payload: received
        )
        let samples = payload.samples(in: consume context)
        let live =
            state.session.lastIntermediate.map { time.timeIntervalSince($0) <= configuration.liveWindow } ?? false
        if live { state.session.lastIntermediate = nil }
        // A record whose context follows waits for it (matched by sequence number).
        if let sequence = payload.followingContextSequence,
            profile.characteristics.contains(where: { $0.role == .context })
        {
            state.session.awaitingContext.append((sequence, samples.map { PendingSample(sample: $0, live: live) }))
            return
        }
        accept(samples, live: live, state: &state, output: &output)
    }
}
