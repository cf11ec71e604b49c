public import BridgeCore
public import BridgeFoundation
import GATTDecoding

/// Reads the records out of an Omron memory-map download: assembles the response packets from the receive
/// channels, and turns every whole record in a read response of a user area into samples (time from the record,
/// `userID` = the user area's number, conditions as `measurementStatus`). A record larger than a read block
/// (``OmronMemoryMap/recordParts``) arrives in consecutive reads and is joined first. Empty slots give nothing; a
/// packet with a bad checksum, a record with an impossible date, a read that is not aligned to records or a part
/// that does not follow the one before is a problem that says where — never a guessed sample.
public struct OmronRecordReader: StreamedRecordReader {
    public static let decoderIdentifier = "omron-memory-map"

    public let map: OmronMemoryMap
    private var assembler: OmronPacketAssembler
    /// The record being read in parts: its user, slot and the bytes so far.
    private var partial: (user: Int, slot: Int, bytes: [UInt8])?

    public var identifier: String { Self.decoderIdentifier }

    public init(map: OmronMemoryMap) {
        self.map = map
        assembler = OmronPacketAssembler(channels: map.channels.rx.count)
    }

    public func reads(_ characteristic: BluetoothUUID) -> Bool {
        map.channels.rx.contains(characteristic) || map.channels.unlock == characteristic
    }

    public mutating func read(_ value: CharacteristicValue, context: SampleContext) -> StreamedRecords {
        var output = StreamedRecords()
        guard let channel = map.channels.rx.firstIndex(of: value.characteristic),
            let packet = assembler.add(value.bytes, channel: channel)
        else { return output }
        let response: OmronResponse
        do {
            response = try OmronResponse(packet: packet)
        } catch {
            output.problems.append("\(map.model): \(error.description)")
            return output
        }
        guard response.type == 0x8100 else { return output }
        let end = response.address + response.data.count
        for (user, area) in map.users.enumerated() {
            let areaEnd = area.start + area.count * map.recordSize
            guard response.address < areaEnd, end > area.start else { continue }
            let offset = response.address - area.start
            if offset >= 0, end <= areaEnd, response.data.count < map.recordSize,
                offset % map.recordSize + response.data.count <= map.recordSize
            {
                part(response.data, user: user, offset: offset, context: context, to: &output)
                continue
            }
            guard offset >= 0, offset % map.recordSize == 0, end <= areaEnd,
                response.data.count % map.recordSize == 0
            else {
                output.problems.append(
                    "\(map.model): read of \(response.data.count) bytes at 0x\(String(response.address, radix: 16)) "
                        + "does not cover whole records of user \(user + 1) (records of \(map.recordSize) bytes from "
                        + "0x\(String(area.start, radix: 16))); not read"
                )
                continue
            }
            for index in 0..<(response.data.count / map.recordSize) {
                let slot = offset / map.recordSize + index
                let bytes = Array(response.data[(index * map.recordSize)..<((index + 1) * map.recordSize)])
                append(bytes, user: user, slot: slot, context: context, to: &output)
            }
        }
        return output
    }

    /// A read of part of one record (`offset` from the user area's start): the first part starts a record, each
    /// next part must follow the bytes so far; the last one completes it.
    private mutating func part(
        _ data: [UInt8],
        user: Int,
        offset: Int,
        context: SampleContext,
        to output: inout StreamedRecords
    ) {
        let slot = offset / map.recordSize
        let position = offset % map.recordSize
        if position == 0 {
            partial = (user, slot, data)
        } else if let started = partial, started.user == user, started.slot == slot, started.bytes.count == position {
            partial?.bytes += data
        } else {
            partial = nil
            output.problems.append(
                "\(map.model): part of user \(user + 1) slot \(slot) from byte \(position) does not follow a read of "
                    + "the bytes before it; not read"
            )
            return
        }
        guard let record = partial, record.bytes.count == map.recordSize else { return }
        partial = nil
        append(record.bytes, user: user, slot: slot, context: context, to: &output)
    }

    private func append(
        _ bytes: [UInt8],
        user: Int,
        slot: Int,
        context: SampleContext,
        to output: inout StreamedRecords
    ) {
        let record: OmronRecord
        do {
            guard let read = try map.layout.read(bytes) else { return }
            record = read
        } catch {
            output.problems.append(
                "\(map.model): user \(user + 1) slot \(slot) (\(OmronPacketError.hex(bytes))): \(error.description); "
                    + "not stored"
            )
            return
        }
        output.records += 1
        var context = context
        context.payload = bytes
        // Whichever channel completed the packet, a record is named by the first: its id stays the same however
        // it was read (a block of four, or alone).
        context.source.characteristic = map.channels.rx.first
        var metadata = ["userID": String(user + 1), "memorySlot": String(slot)]
        if !map.layout.flags.isEmpty {
            metadata["measurementStatus"] =
                record.conditions.isEmpty ? "none" : record.conditions.joined(separator: ",")
        }
        context.metadata = metadata
        let start = context.start(for: record.time)
        var made: [SampleDraft] = []
        for sample in map.layout.samples {
            guard let value = map.layout.value(of: sample, in: record),
                let draft = context.sample(
                    sample.type,
                    value: value,
                    unit: sample.unit,
                    deviceTime: record.time,
                    start: start
                )
            else { continue }
            made.append(draft)
        }
        // Measures without a quantity type ride on a stored sample's metadata (``OmronRecordLayout/Extra``).
        let types = made.map(\.type)
        for index in made.indices {
            made[index].metadata.merge(map.layout.extras(for: made[index].type, made: types, in: record)) { $1 }
        }
        output.samples += made
    }
}
