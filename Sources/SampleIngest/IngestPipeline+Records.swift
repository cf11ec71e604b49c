import BridgeCore
import BridgeFoundation
import DeviceProfiles
import DeviceSessions
import Foundation
import GATTDecoding

/// Values that wait for another value: records spread over several values (a memory-map download), values split
/// over two packets, and glucose measurements waiting for their context.
extension IngestPipeline {
    // MARK: - Records spread over several values

    /// Feeds the profile's record reader (a memory-map download): its records' samples wait for the end of the
    /// session like any other timed record; what it could not read is a bad event saying where.
    func streamedRecords(
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
        if let clock = read.deviceClock, let device = clock.date(in: context.timeZone) {
            // The device said what its clock shows: the session's samples are corrected by the difference, as
            // for a Current Time read.
            state.session.measuredClockOffset = time.timeIntervalSince(device).rounded()
        }
        for problem in read.problems {
            output.issues.append(PipelineIssue(severity: .badEvent, device: address, time: time, message: problem))
        }
        for warning in read.warnings {
            output.issues.append(PipelineIssue(severity: .warning, device: address, time: time, message: warning))
        }
        accept(read.samples, live: false, state: &state, output: &output)
    }

    // MARK: - Multi-packet values

    /// Keeps the first packets of a split value until its last one arrives, then returns the merged value
    /// (the characteristic's own ``MultiPacketPayload/merge(_:_:)`` and ``MultiPacketPayload/complete(_:)``); a
    /// single-packet value passes through.
    func multiPacket(
        _ bytes: [UInt8],
        on characteristic: BluetoothUUID,
        packets: any MultiPacketPayload.Type,
        time: Date,
        state: inout DeviceState,
        output: inout Output
    ) -> [UInt8]? {
        let address = state.identity.key
        if let first = state.session.firstPacket[characteristic],
            time.timeIntervalSince(first.time) > configuration.multiPacketTimeout
        {
            output.issues.append(
                PipelineIssue(
                    severity: .warning,
                    device: address,
                    time: time,
                    message: "dropped a multi-packet value whose continuation never came"
                )
            )
            state.session.firstPacket[characteristic] = nil
        }
        guard let first = state.session.firstPacket[characteristic] else {
            if packets.continues(bytes) {
                state.session.firstPacket[characteristic] = (bytes, time)
                return nil
            }
            return packets.complete(bytes)
        }
        state.session.firstPacket[characteristic] = nil
        do {
            let merged = try packets.merge(first.bytes, bytes)
            // A value of more than two packets (GHS segments) waits for the rest, timed from its first packet.
            if packets.continues(merged) {
                state.session.firstPacket[characteristic] = (merged, first.time)
                return nil
            }
            return packets.complete(merged)
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

    func attachContext(
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

    func releaseAwaitingContext(_ session: inout Session) {
        for waiting in session.awaitingContext { session.pending.append(contentsOf: waiting.samples) }
        session.awaitingContext = []
    }
}
