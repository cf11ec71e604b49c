public import BridgeCore
public import BridgeFoundation
public import DeviceSessions
public import Foundation

/// A simulated Viatom oximeter (Wellue O2Ring, Checkme O2) as MackeyStingray/o2r documents the protocol: answers
/// information, file open/read/close and live-value requests with `55` responses (CRC-8), split into 20-byte
/// notifications. It keeps every command it was sent, so a test sees that the bridge only reads; faults damage or
/// withhold answers the way a radio link does.
public struct ViatomRing: Sendable {
    public var download: ViatomDownload
    /// The stored recordings, by name, in the order `FileList` gives them.
    public var files: [(name: String, bytes: [UInt8])] = []
    /// `CurTIME`, the ring's clock.
    public var clock = "2026-11-28,07:00:00"
    /// Bytes per file-read block.
    public var blockSize = 256
    /// The live values (13 bytes: SpO2, pulse rate, flag, …).
    public var live: [UInt8] = [98, 61, 0, 0, 0, 0, 0, 80, 0, 2, 10, 1, 0]
    /// Every request received (command byte, block, data).
    public private(set) var commands: [(command: UInt8, block: Int, data: [UInt8])] = []
    /// Answers to damage (one bit of the data flipped, so the CRC-8 fails), counted down per answer.
    public var corruptAnswers: Set<Int> = []
    /// After this many file-read answers, answer nothing more (the link is gone).
    public var silentAfterReads: Int?
    private var answers = 0
    private var reads = 0
    private var open: [UInt8]?

    public init(download: ViatomDownload) {
        self.download = download
    }

    /// The names of the files opened, in order.
    public var opened: [String] {
        commands.filter { $0.command == 0x03 }.map { String(decoding: $0.data.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// The ring's answer to a write of `bytes` to `characteristic`.
    public mutating func answer(_ characteristic: BluetoothUUID, _ bytes: [UInt8]) -> [CharacteristicValue] {
        guard characteristic == download.write, bytes.count >= 8, bytes[0] == 0xAA, bytes[1] ^ bytes[2] == 0xFF
        else { return [] }
        let length = Int(bytes[5]) | Int(bytes[6]) << 8
        guard bytes.count == length + 8 else { return [] }
        let block = Int(bytes[3]) | Int(bytes[4]) << 8
        let data = Array(bytes[7..<(7 + length)])
        commands.append((bytes[1], block, data))
        if let silent = silentAfterReads, reads >= silent { return [] }
        var status: UInt8 = 0
        var reply: [UInt8] = []
        switch ViatomPacket.Command(rawValue: bytes[1]) {
        case .info:
            let list = files.map(\.name).joined(separator: ",")
            let json =
                #"{"Region":"CE","Model":"1652","SoftwareVer":"1.5.0","CurTIME":"\#(clock)","FileList":"\#(list),"}"#
            reply = Array(json.utf8) + [0, 0, 0, 0]
        case .fileOpen:
            let name = String(decoding: data.prefix { $0 != 0 }, as: UTF8.self)
            if let file = files.first(where: { $0.name == name }) {
                open = file.bytes
                let size = UInt32(file.bytes.count)
                reply = [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)]
            } else {
                status = 1
                reply = [0x09, 0, 0, 0]
            }
        case .fileRead:
            reads += 1
            let file = open ?? []
            let start = min(block * blockSize, file.count)
            reply = Array(file[start..<min(start + blockSize, file.count)])
        case .fileClose:
            open = nil
        case .readSensors:
            reply = live
        default:
            status = 1
            reply = [0x0B, 0, 0, 0]
        }
        var packet: [UInt8] = [0x55, status, status ^ 0xFF, 0, 0, UInt8(reply.count & 0xFF), UInt8(reply.count >> 8)]
        packet += reply
        packet += Checksum.crc8.bytes(of: packet)
        answers += 1
        if corruptAnswers.contains(answers), packet.count > 8 { packet[7] ^= 0x01 }
        return stride(from: 0, to: packet.count, by: 20).map { start in
            CharacteristicValue(
                characteristic: download.notify,
                bytes: Array(packet[start..<min(start + 20, packet.count)]),
                delivery: .notification
            )
        }
    }

    /// A version 3 file: the header (start, duration) and 5-byte records `interval` seconds apart.
    public static func file(
        start: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int),
        interval: Int = 4,
        records: [[UInt8]]
    ) -> [UInt8] {
        let duration = UInt32(interval * records.count)
        let size = UInt32(40 + 5 * records.count)
        var header: [UInt8] = [
            3, 0, UInt8(start.year & 0xFF), UInt8(start.year >> 8), UInt8(start.month), UInt8(start.day),
            UInt8(start.hour), UInt8(start.minute), UInt8(start.second),
        ]
        header += [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)]
        header += [UInt8(duration & 0xFF), UInt8(duration >> 8 & 0xFF), UInt8(duration >> 16 & 0xFF), 0]
        header += [UInt8](repeating: 0, count: 40 - header.count)
        return header + records.flatMap { $0 }
    }

    /// What a fresh ``ViatomRecordReader`` per connection makes of a transport's events (the bridge's writes and
    /// the ring's notifications), with device times read in `zone`, as the ingest pipeline feeds it.
    public static func read(
        _ events: [TransportEvent],
        download: ViatomDownload,
        zone: TimeZone
    ) -> StreamedRecords {
        var reader = ViatomRecordReader(download: download)
        var all = StreamedRecords()
        for event in events {
            switch event.kind {
            case .connected:
                reader = ViatomRecordReader(download: download)
            case .written(let write):
                reader.wrote(write)
            case .value(let value) where reader.reads(value.characteristic):
                let context = SampleContext(
                    receivedAt: event.time,
                    timeZone: zone,
                    source: SampleSource(
                        kind: .device,
                        characteristic: value.characteristic,
                        decoder: ViatomRecordReader.decoderIdentifier
                    ),
                    payload: value.bytes
                )
                let read = reader.read(value, context: context)
                all.samples += read.samples
                all.problems += read.problems
                all.warnings += read.warnings
                all.records += read.records
                all.deviceClock = read.deviceClock ?? all.deviceClock
            default:
                break
            }
        }
        return all
    }
}
