public import BridgeCore
public import BridgeFoundation
public import DeviceSessions
public import Foundation
import GATTDecoding

/// A simulated Omron memory-map device: a 64 KiB memory image (unwritten bytes 0xFF) served over the vendor
/// characteristics the way omblepy documents the protocol — unlock with the stored key, start/read/end packets
/// with their XOR checksum, answers split into 16-byte pieces on the receive channels. It only reads memory;
/// a write command is answered with an error status, so a test notices if the bridge ever wrote.
public struct OmronMemoryDevice: Sendable {
    public let map: OmronMemoryMap
    public var memory: [UInt8] = Array(repeating: 0xFF, count: 0x10000)
    public var key: [UInt8]
    /// Record slots written so far per user (the next slot is `written % count`).
    public private(set) var written: [Int]
    /// Every command packet received, for tests that count reads.
    public private(set) var commands: [[UInt8]] = []
    /// Answers left to drop (a device that does not answer).
    public var dropAnswers = 0
    private var unlocked = false
    private var pending: [UInt8] = []

    public init(map: OmronMemoryMap, key: [UInt8]) {
        self.map = map
        self.key = key
        written = Array(repeating: 0, count: map.users.count)
        for user in map.users.indices { setPointer(user: user) }
    }

    /// Stores a record in the user's next slot and moves the index pointer, as the device does after measuring.
    public mutating func measure(user: Int, record: [UInt8]) {
        precondition(record.count == map.recordSize)
        let slot = written[user] % map.users[user].count
        let address = map.address(user: user, slot: slot)
        memory.replaceSubrange(address..<(address + record.count), with: record)
        written[user] += 1
        setPointer(user: user)
    }

    private mutating func setPointer(user: Int) {
        guard let pointers = map.indexPointers, user < pointers.users.count else { return }
        let pointer = pointers.users[user]
        let count = map.users[user].count
        let next = written[user] % count
        let value = pointer.pointsToNext ? next : (next - 1 + count) % count
        let address = pointers.address + pointer.offset
        memory[address + (pointer.bigEndian ? 0 : 1)] = 0
        memory[address + (pointer.bigEndian ? 1 : 0)] = UInt8(value & pointer.mask)
    }

    /// The device's answers to a write of `bytes` to `characteristic`.
    public mutating func answer(_ characteristic: BluetoothUUID, _ bytes: [UInt8]) -> [CharacteristicValue] {
        if characteristic == map.channels.unlock {
            guard let code = bytes.first else { return [] }
            let answer: [UInt8]
            switch code {
            case 0x11 where bytes.count == 20:
                // The token handshake: any 4 bytes, echoed (hass-omron's reading of the FE4A cuffs).
                unlocked = true
                answer = [0x91, 0x00] + bytes[1..<5]
            default:
                let accepted = code == 0x01 && Array(bytes.dropFirst()) == key
                if accepted { unlocked = true }
                answer = accepted ? [0x81, 0x00] : [0x81, 0x0F]
            }
            return [CharacteristicValue(characteristic: characteristic, bytes: answer, delivery: .notification)]
        }
        guard let channel = map.channels.tx.firstIndex(of: characteristic) else { return [] }
        if channel == 0 { pending = [] }
        pending += bytes
        guard let length = pending.first, pending.count >= Int(length) else { return [] }
        let packet = Array(pending.prefix(Int(length)))
        pending = []
        commands.append(packet)
        if dropAnswers > 0 {
            dropAnswers -= 1
            return []
        }
        guard unlocked || map.channels.unlock == nil, OmronPacket.xor(packet) == 0, packet.count >= 8 else { return [] }
        let type = UInt16(packet[1]) << 8 | UInt16(packet[2])
        let address = Int(packet[3]) << 8 | Int(packet[4])
        let count = Int(packet[5])
        let response: [UInt8]
        switch type {
        case OmronPacket.startType:
            response = OmronPacket.command(0x8000, address: 0, count: 0x10, data: Array(repeating: 0, count: 0x10))
        case OmronPacket.readType:
            response = OmronResponse.readPacket(address: address, data: Array(memory[address..<(address + count)]))
        case OmronPacket.endType:
            response = OmronPacket.command(0x8F00, address: 0, count: 0)
        default:
            // A write (01 C0) or anything else: refused with a non-zero status.
            response = OmronPacket.command(type | 0x8000, address: address, count: 0, data: [0x01])
        }
        return OmronPacket.pieces(response).enumerated().map { index, piece in
            // Piece n on receive channel n; a device with one receive channel sends them all on it, in order.
            CharacteristicValue(
                characteristic: map.channels.rx[index % map.channels.rx.count],
                bytes: piece,
                delivery: .notification
            )
        }
    }
}

/// Runs a device profile's session against a simulated device without any clock: the events a live
/// transport would have delivered (the bridge's writes and the device's answers), for recordings and tests.
public enum SimulatedSession {
    public struct Outcome: Sendable {
        public var events: [TransportEvent]
        public var persisted: [String: SessionValue?]
        public var failure: String?
        public var end: Date
        /// Each download progress report, as [done, total].
        public var progress: [[Int]] = []
    }

    /// - Parameters:
    ///   - script: the profile's session.
    ///   - variables: the device's persisted variables at the start.
    ///   - answer: the device: answers to a write.
    public static func run(
        _ script: SessionScript,
        variables: SessionVariables,
        device address: String,
        start: Date,
        timeZone: TimeZone,
        answer: (BluetoothUUID, [UInt8]) -> [CharacteristicValue]
    ) -> Outcome {
        var machine = SessionMachine(script: script, variables: variables, timeZone: timeZone)
        var time = start
        var events: [TransportEvent] = []
        var timers: [(id: Int, at: Date)] = []
        var pending = machine.start(now: time)
        var outcome = Outcome(events: [], persisted: [:], failure: nil, end: start)
        while true {
            if pending.isEmpty {
                // Nothing answered: the earliest timer fires.
                guard let next = timers.min(by: { $0.at < $1.at }) else { break }
                timers.removeAll { $0.id == next.id }
                time = max(time, next.at)
                pending = machine.handle(.timer(next.id), now: time)
                continue
            }
            let action = pending.removeFirst()
            switch action {
            case .write(let id, let uuid, let bytes, let withResponse):
                time += 0.02
                events.append(
                    TransportEvent(
                        time: time,
                        device: address,
                        kind: .written(
                            CharacteristicWrite(characteristic: uuid, bytes: bytes, withResponse: withResponse)
                        )
                    )
                )
                pending += machine.handle(.completed(action: id), now: time)
                for value in answer(uuid, bytes) {
                    time += 0.01
                    events.append(TransportEvent(time: time, device: address, kind: .value(value)))
                    pending += machine.handle(.value(value), now: time)
                }
            case .subscribe(let id, _), .read(let id, _):
                pending += machine.handle(.completed(action: id), now: time)
            case .readDescriptors(let id, _, let descriptor):
                pending += machine.handle(.failed(action: id, message: "no descriptor \(descriptor)"), now: time)
            case .startTimer(let id, let seconds):
                timers.append((id, time.addingTimeInterval(seconds)))
            case .finished(let persist):
                outcome.persisted = persist
            case .failed(let reason):
                outcome.failure = reason
            case .progress(let done, let total):
                outcome.progress.append([done, total])
            case .download:
                break
            }
            if machine.status != .running, pending.isEmpty { break }
        }
        outcome.events = events
        outcome.end = time
        return outcome
    }
}
