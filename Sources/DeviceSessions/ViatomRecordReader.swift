public import BridgeCore
public import BridgeFoundation
import Foundation
import GATTDecoding

/// Reads the samples out of a Viatom download (``ViatomFileSession``): it sees each request the bridge writes and
/// the response notified after it, joins a file's blocks (keyed by the block the request named, so a block asked
/// again replaces rather than repeats), and once the size the open answered has arrived reads the file
/// (``ViatomOximetryFile``): each record is an SpO2 and a pulse-rate sample at the file's start + offset (the
/// device's wall clock, read in the pipeline's zone like every device time). Records the device marks invalid,
/// an SpO2 outside 10…100 % and a pulse rate of 0 or 255 give no sample. The information response gives the
/// device clock; a live reading gives a spot SpO2 and pulse rate at the receive time.
///
/// A response whose CRC-8 fails is a warning (the session asks for it again); a file that does not read, or blocks
/// that do not add up, are problems that say which file and why. Nothing of either is stored.
public struct ViatomRecordReader: StreamedRecordReader {
    public static let decoderIdentifier = "viatom-oximetry"

    public let download: ViatomDownload
    private var assembler = ViatomResponseAssembler()
    /// The request the next response answers, from the last write.
    private var request: (command: ViatomPacket.Command, block: Int)?
    private var file: (name: String, size: Int?, blocks: [Int: [UInt8]])?

    public var identifier: String { Self.decoderIdentifier }

    public init(download: ViatomDownload) {
        self.download = download
    }

    public func reads(_ characteristic: BluetoothUUID) -> Bool {
        characteristic == download.notify || characteristic == download.write
    }

    public mutating func wrote(_ write: CharacteristicWrite) {
        let bytes = write.bytes
        guard write.characteristic == download.write, bytes.count >= 8, bytes[0] == 0xAA else { return }
        let command = ViatomPacket.Command(rawValue: bytes[1])
        request = (command, Int(bytes[3]) | Int(bytes[4]) << 8)
        assembler.reset()
        if command == .fileOpen {
            let name = bytes[7..<(bytes.count - 1)].prefix { $0 != 0 }
            file = (String(decoding: name, as: UTF8.self), nil, [:])
        }
    }

    public mutating func read(_ value: CharacteristicValue, context: SampleContext) -> StreamedRecords {
        var output = StreamedRecords()
        guard value.characteristic == download.notify, let bytes = assembler.add(value.bytes) else { return output }
        let what = request.map { Self.name($0.command) } ?? "unrequested value"
        let packet: ViatomPacket
        do {
            packet = try ViatomPacket(response: bytes)
        } catch {
            output.warnings.append(
                "\(download.model): \(what) response refused: \(error.description); not read (\(Hex.string(bytes)))"
            )
            return output
        }
        guard packet.status == 0, let request else { return output }
        switch request.command {
        case .info:
            output.deviceClock = try? ViatomDeviceInfo(data: packet.data).clock
        case .fileOpen:
            guard packet.data.count >= 4 else { return output }
            file?.size = packet.data.prefix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
        case .fileRead:
            guard var current = file, let size = current.size else { return output }
            current.blocks[request.block] = packet.data
            file = current
            let joined = current.blocks.keys.sorted().flatMap { current.blocks[$0]! }
            guard joined.count >= size else { return output }
            file = nil
            guard current.blocks.keys.sorted() == Array(0..<current.blocks.count), joined.count == size else {
                output.problems.append(
                    "\(download.model): file \(current.name): blocks \(current.blocks.keys.sorted()) hold "
                        + "\(joined.count) bytes where the open announced \(size); not read"
                )
                return output
            }
            append(file: joined, name: current.name, context: context, to: &output)
        case .readSensors:
            appendLive(packet.data, context: context, to: &output)
        default:
            break
        }
        return output
    }

    static func name(_ command: ViatomPacket.Command) -> String {
        switch command {
        case .info: "device information"
        case .fileOpen: "file open"
        case .fileRead: "file read"
        case .fileClose: "file close"
        case .readSensors: "live reading"
        default: "command \(ViatomPacket.Failure.hex(command.rawValue))"
        }
    }

    private func append(file bytes: [UInt8], name: String, context: SampleContext, to output: inout StreamedRecords) {
        let file: ViatomOximetryFile
        do {
            file = try ViatomOximetryFile(bytes)
        } catch {
            output.problems.append("\(download.model): file \(name): \(error.description); not read")
            return
        }
        let utc = TimeZone(identifier: "UTC")!
        guard let start = file.start.date(in: utc) else { return }
        var context = context
        context.source.characteristic = download.notify
        for record in file.records {
            output.records += 1
            guard !record.isInvalid else { continue }
            let time = DateTime(wallClockOf: start.addingTimeInterval(Double(record.offset)), in: utc)
            context.payload = record.bytes
            context.metadata = ["viatomFile": name, "sampleInterval": String(file.interval)]
            let at = context.start(for: time)
            if let sample = context.sample(
                .oxygenSaturation,
                value: Double(record.oxygenSaturation),
                unit: .percent,
                deviceTime: time,
                start: at
            ) {
                output.samples.append(sample)
            }
            if Self.validPulse(record.pulseRate),
                let sample = context.sample(
                    .heartRate,
                    value: Double(record.pulseRate),
                    unit: .perMinute,
                    deviceTime: time,
                    start: at
                )
            {
                output.samples.append(sample)
            }
        }
    }

    /// A live reading: SpO2 (byte 0), pulse rate (byte 1), byte 2 FF when the sensor is off (MackeyStingray/o2r
    /// `o2state.py`; a Pulox Checkme O2 reader reads the same bytes).
    private func appendLive(_ data: [UInt8], context: SampleContext, to output: inout StreamedRecords) {
        guard data.count >= 3, data[2] != 0xFF, (10...100).contains(data[0]) else { return }
        var context = context
        context.payload = data
        context.metadata = ["live": "true"]
        if let sample = context.sample(.oxygenSaturation, value: Double(data[0]), unit: .percent) {
            output.samples.append(sample)
        }
        if Self.validPulse(data[1]), let sample = context.sample(.heartRate, value: Double(data[1]), unit: .perMinute) {
            output.samples.append(sample)
        }
    }

    static func validPulse(_ value: UInt8) -> Bool { value != 0 && value != 0xFF }
}
