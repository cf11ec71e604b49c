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
/// What a value means comes from its payload type, never from its bytes: decoders are resolved when profiles
/// load (``DeviceProfile/Characteristic/decoder``), and the pipeline asks the decoded payload what it needs
/// (``SequencedRecord``, ``ControlPointMessage``, ``DeviceIdentityString``, ``SampleAnnotating``,
/// ``DeviceClockReading``, ``SampleProducing``). Adding a device touches a decoder and a profile, never this type.
/// Per value the stages are: length check → entry of the claiming profile → multi-packet merge → quirk overlay
/// (``PayloadQuirks``, the profile's vendor fixes) → decode → role. Session steps (writes and awaited answers,
/// ``SessionMachine``) run in the transport; their answers arrive here as ordinary values.
public struct IngestPipeline {
    public let catalog: DeviceCatalog
    public var configuration: PipelineConfiguration
    private let logger: Logger
    private var devices: [String: DeviceState] = [:]
    /// Addresses in order of first appearance, so output never depends on hashing.
    private var order: [String] = []

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

    // MARK: - State

    struct Output {
        var samples: [QuantitySample]
        var issues: [PipelineIssue]
    }

    struct PendingSample {
        var sample: QuantitySample
        var live: Bool
    }

    struct Session {
        var pending: [PendingSample] = []
        var lastIntermediate: Date?
        var firstPacket: (bytes: [UInt8], time: Date)?
        var awaitingContext: [(sequence: UInt16, samples: [PendingSample])] = []
        /// The last advertised value per Service Data UUID / Manufacturer Data company (repeats are collapsed).
        var lastServiceData: [String: [UInt8]] = [:]
        /// Frames whose samples wait for their merge partner (`merge`).
        var waitingForMerge: [FrameWaiting] = []
        /// The last final frame of each name, for a merging frame that comes second.
        var recentFrames: [String: (decoded: DecodedFrame, time: Date)] = [:]
        /// The last final frame per characteristic and frame name, for `finalRepeats` (reset by an intermediate
        /// frame or a value no frame selects).
        var lastFinalFrames: [String: (bytes: [UInt8], time: Date)] = [:]
        var emittedTypes: Set<QuantityType> = []
        var lastAdvertisement: Date?
        /// Receive time minus the device's own clock, read at connect (a `clock` characteristic), in seconds.
        var measuredClockOffset: Double?
        /// The bridge asked for stored records (RACP `01 …`) and the final response has not come yet: every
        /// measurement value until then is a downloaded record.
        var downloading = false
    }

    struct DeviceState {
        var identity: DeviceIdentity
        var profile: DeviceProfile?
        /// Plausibility and measurement range for this device (the profile's, over the configuration's).
        var screening = SampleScreening()
        var session = Session()
        var sampleCount = 0
        /// Measurement values that came as stored records in answer to a report-records request.
        var downloadedRecords = 0
        var reportedUnclaimed = false
        /// The profile's reader of records spread over several values (a memory-map download), per connection.
        var recordReader: (any StreamedRecordReader)?
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

    private func handle(_ event: TransportEvent, state: inout DeviceState, output: inout Output) {
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
            // What the bridge asked the device (a session step); the answers arrive as values.
            logger.debug(
                "wrote",
                metadata: ["device.address": "\(event.device)", "characteristic": "\(write.characteristic)"]
            )
            if let entry = state.profile?.characteristic(write.characteristic), entry.role == .controlPoint,
                let request = (try? entry.decoder?.decode(write.bytes)) as? any ControlPointMessage,
                request.requestsStoredRecords
            {
                state.session.downloading = true
            }
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

    private func claim(_ state: inout DeviceState, advertisement: Advertisement, time: Date) {
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

    private func characteristicValue(
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
        if let frames = entry.frames {
            // Several frames back to back (`frameLength`): each in order, as if it had come alone.
            var pieces = [value.bytes[...]]
            if let length = entry.frameLength {
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
                            message: "profile \(profile.id): the last \(last.count) byte(s) of a "
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
                if entry.frameLength != nil {
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
            return
        }
        guard let decoder = entry.decoder else {
            logger.debug(
                "value of a written characteristic",
                metadata: ["device.address": "\(address)", "characteristic": "\(value.characteristic)"]
            )
            return
        }
        var bytes = value.bytes
        if entry.multiPacket, let packets = decoder.type as? any MultiPacketPayload.Type {
            guard let merged = multiPacket(bytes, packets: packets, time: time, state: &state, output: &output) else {
                return
            }
            bytes = merged
        }
        // The device's own bytes are kept as the sample's payload; the decoder reads them in the standard
        // layout when the profile names vendor quirks.
        let received = bytes
        if !entry.quirks.isEmpty { bytes = entry.quirks.standardised(bytes, decoder: decoder.identifier) }
        let payload: any GATTPayload
        do {
            payload = try decoder.decode(bytes)
        } catch {
            bad("malformed payload: \(error.description)")
            return
        }
        switch entry.role {
        case .identity:
            (payload as? any DeviceIdentityString)?.apply(to: &state.identity)
        case .intermediate:
            state.session.lastIntermediate = time
        case .info:
            logger.debug("value", metadata: ["device.address": "\(address)", "decoder": "\(decoder.identifier)"])
        case .clock:
            let zone = profile.quirks.deviceTimeIsUTC ? Self.utc : configuration.timeZone
            guard let device = (payload as? any DeviceClockReading)?.deviceClock.date(in: zone) else {
                bad("\(decoder.type.name): not a usable device time")
                return
            }
            state.session.measuredClockOffset = time.timeIntervalSince(device).rounded()
        case .controlPoint:
            // The procedure's final response: the stored-record download is over; nothing more will follow.
            if (payload as? any ControlPointMessage)?.isResponse == true {
                state.session.downloading = false
                releaseAwaitingContext(&state.session)
            }
        case .context:
            guard let context = payload as? any SampleAnnotating else { return }
            attachContext(context, time: time, state: &state, output: &output)
        case .measurement:
            guard let producing = payload as? any SampleProducing else { return }
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
            let context = SampleContext(
                receivedAt: time,
                timeZone: profile.quirks.deviceTimeIsUTC ? Self.utc : configuration.timeZone,
                source: SampleSource(
                    kind: .device,
                    characteristic: value.characteristic,
                    decoder: decoder.identifier,
                    device: state.identity
                ),
                payload: received
            )
            let samples = producing.samples(in: consume context)
            let live =
                state.session.lastIntermediate.map { time.timeIntervalSince($0) <= configuration.liveWindow } ?? false
            if live { state.session.lastIntermediate = nil }
            // A record whose context follows waits for it (matched by sequence number).
            if let record = payload as? any SequencedRecord, record.contextFollows,
                profile.characteristics.contains(where: { $0.role == .context })
            {
                state.session.awaitingContext.append(
                    (record.sequenceNumber, samples.map { PendingSample(sample: $0, live: live) })
                )
                return
            }
            accept(samples, live: live, state: &state, output: &output)
        }
    }

    // MARK: - Records spread over several values

    /// Feeds the profile's record reader (a memory-map download): its records' samples wait for the end of the
    /// session like any other timed record; what it could not read is a bad event saying where.
    private func streamedRecords(
        _ value: CharacteristicValue,
        reader: inout any StreamedRecordReader,
        time: Date,
        state: inout DeviceState,
        output: inout Output
    ) {
        let context = SampleContext(
            receivedAt: time,
            timeZone: state.profile?.quirks.deviceTimeIsUTC == true ? Self.utc : configuration.timeZone,
            source: SampleSource(
                kind: .device,
                characteristic: value.characteristic,
                decoder: reader.identifier,
                device: state.identity
            ),
            payload: value.bytes
        )
        let read = reader.read(value, context: context)
        // Records read out of the device's memory are stored records it downloaded.
        state.downloadedRecords += read.records
        let address = state.identity.address ?? state.identity.key
        for problem in read.problems {
            output.issues.append(PipelineIssue(severity: .badEvent, device: address, time: time, message: problem))
        }
        accept(read.samples, live: false, state: &state, output: &output)
    }

    // MARK: - Multi-packet values

    /// Keeps the first packet of a split value until its continuation arrives, then returns the merged value
    /// (the characteristic's own ``MultiPacketPayload/merge(_:_:)``); a single-packet value passes through.
    private func multiPacket(
        _ bytes: [UInt8],
        packets: any MultiPacketPayload.Type,
        time: Date,
        state: inout DeviceState,
        output: inout Output
    ) -> [UInt8]? {
        let address = state.identity.key
        if let first = state.session.firstPacket, time.timeIntervalSince(first.time) > configuration.multiPacketTimeout
        {
            output.issues.append(
                PipelineIssue(
                    severity: .warning,
                    device: address,
                    time: time,
                    message: "dropped a multi-packet value whose continuation never came"
                )
            )
            state.session.firstPacket = nil
        }
        guard let first = state.session.firstPacket else {
            if packets.continues(bytes) {
                state.session.firstPacket = (bytes, time)
                return nil
            }
            return bytes
        }
        state.session.firstPacket = nil
        do {
            return try packets.merge(first.bytes, bytes)
        } catch {
            output.issues.append(
                PipelineIssue(
                    severity: .badEvent,
                    device: address,
                    time: time,
                    message: "malformed payload: \(error.description)"
                )
            )
            return nil
        }
    }

    // MARK: - Glucose context

    private func attachContext(
        _ context: any SampleAnnotating,
        time: Date,
        state: inout DeviceState,
        output: inout Output
    ) {
        let sequence = context.sequenceNumber
        guard let index = state.session.awaitingContext.firstIndex(where: { $0.sequence == sequence }) else {
            output.issues.append(
                PipelineIssue(
                    severity: .warning,
                    device: state.identity.key,
                    time: time,
                    message: "context for sequence number \(sequence) without a waiting measurement"
                )
            )
            return
        }
        let metadata = context.sampleMetadata
        var waiting = state.session.awaitingContext.remove(at: index).samples
        for position in waiting.indices {
            for (key, value) in metadata where waiting[position].sample.metadata[key] == nil {
                waiting[position].sample.metadata[key] = value
            }
        }
        state.session.pending.append(contentsOf: waiting)
    }

    private func releaseAwaitingContext(_ session: inout Session) {
        for waiting in session.awaitingContext { session.pending.append(contentsOf: waiting.samples) }
        session.awaitingContext = []
    }

    // MARK: - Broadcast scales

    private func broadcast(
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
            let payload: any GATTPayload
            do {
                payload = try decoder.decode(bytes)
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
            guard let producing = payload as? any SampleProducing else { return nil }
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
    /// removed) ends a weigh-in that gave its samples; each quantity is stored once per weigh-in.
    /// - Parameter decode: the value's samples, nil when it was refused (the issue is already reported).
    private func broadcast(
        _ bytes: [UInt8],
        key: String,
        label: String,
        time: Date,
        state: inout DeviceState,
        output: inout Output,
        decode: (IngestPipeline, inout DeviceState, inout Output) -> [QuantitySample]?
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
        if samples.isEmpty {
            // Unstable or load removed: a weigh-in that already gave its samples is over.
            if !state.session.emittedTypes.isEmpty { endSession(&state, output: &output) }
            return
        }
        let fresh = samples.filter { !state.session.emittedTypes.contains($0.type) }
        state.session.emittedTypes.formUnion(fresh.map(\.type))
        accept(fresh, live: true, state: &state, output: &output)
    }

    // MARK: - Frames

    /// A value read by a profile's frames: decoded by the first frame that selects it; its samples, or empty for
    /// an intermediate frame, a frame waiting for its merge partner or a value no frame selects; nil when the
    /// value was refused (checksum, a field outside the value; reported as a warning naming profile and frame).
    fileprivate func frameSamples(
        _ bytes: [UInt8],
        frames: FrameSet,
        source: BluetoothUUID?,
        time: Date,
        state: inout DeviceState,
        output: inout Output
    ) -> [QuantitySample]? {
        let profile = state.profile?.id ?? "?"
        let address = state.identity.address ?? state.identity.key
        var samples: [QuantitySample] = []
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
    private func produce(
        _ waiting: FrameWaiting,
        merged: DecodedFrame?,
        into samples: inout [QuantitySample],
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
    private func expireMerges(
        before time: Date?,
        state: inout DeviceState,
        into samples: inout [QuantitySample],
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

    // MARK: - Time

    private func accept(_ samples: [QuantitySample], live: Bool, state: inout DeviceState, output: inout Output) {
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
    private func emit(_ sample: QuantitySample, state: inout DeviceState, output: inout Output) {
        var sample = sample
        // Samples made during this event already carry the identity: writing it again would give each sample a
        // provenance of its own (copy on write) and so hash its payload's key prefix once per sample instead of
        // once per payload. Samples that waited for the session's end get what the device said meanwhile.
        if sample.source.device != state.identity { sample.source.device = state.identity }
        state.screening.screen(&sample)
        // Finished: the id is derived once here and carried to the store, publishers and exports.
        sample.assignID()
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
    private func endSession(_ state: inout DeviceState, output: inout Output) {
        // Frames still waiting for their merge partner give their own samples (never lost).
        let waiting = state.session.waitingForMerge
        state.session.waitingForMerge = []
        for item in waiting {
            var samples: [QuantitySample] = []
            produce(item, merged: nil, into: &samples, state: &state, output: &output)
            accept(samples, live: item.live, state: &state, output: &output)
        }
        var session = state.session
        state.session = Session()
        if session.firstPacket != nil {
            output.issues.append(
                PipelineIssue(
                    severity: .warning,
                    device: state.identity.key,
                    time: session.firstPacket!.time,
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

    /// The session's clock offset in whole seconds, when the device clock is evidently wrong:
    /// a live measurement further than the skew tolerance from its receive time, a record in the future, or
    /// a record before the year 2000. Estimated from the live measurement, else from the last record.
    func clockOffset(_ pending: [PendingSample]) -> Double? {
        func skew(_ sample: QuantitySample) -> Double { sample.receivedAt.timeIntervalSince(sample.start) }
        if let live = pending.last(where: \.live), abs(skew(live.sample)) > configuration.clockSkewTolerance {
            return skew(live.sample).rounded()
        }
        let implausible = pending.contains { pending in
            let sample = pending.sample
            return (sample.deviceTime?.year ?? 2000) < 2000 || -skew(sample) > configuration.futureTolerance
        }
        guard implausible, let last = pending.last else { return nil }
        return skew(last.sample).rounded()
    }
}

/// A final frame waiting for the frame it merges with.
struct FrameWaiting {
    var frame: Frame
    var decoded: DecodedFrame
    var context: SampleContext
    var time: Date
    /// Decoded shortly after an intermediate frame (a live reading).
    var live: Bool

    /// Whether `partner`, decoded at `time`, is this frame's merge partner: within the window, same `by` value.
    func accepts(_ partner: DecodedFrame, at partnerTime: Date) -> Bool {
        guard let merge = frame.merge, partner.frame == merge.with,
            abs(partnerTime.timeIntervalSince(time)) <= merge.window
        else { return false }
        guard let by = merge.by else { return true }
        return decoded.field(by)?.raw != nil && decoded.field(by)?.raw == partner.field(by)?.raw
    }
}

/// A device the pipeline saw.
public struct DeviceSummary: Sendable, Hashable {
    public var identity: DeviceIdentity
    /// Id of the claiming profile, nil when none claimed it.
    public var profile: String?
    /// Samples emitted for the device.
    public var samples: Int
    /// Stored records the device sent in answer to the bridge's report-records requests (RACP `01 …` up to the
    /// `06` response): measurement values, not samples (a blood-pressure record gives several samples).
    public var downloadedRecords: Int

    public init(identity: DeviceIdentity, profile: String?, samples: Int, downloadedRecords: Int = 0) {
        self.identity = identity
        self.profile = profile
        self.samples = samples
        self.downloadedRecords = downloadedRecords
    }
}
