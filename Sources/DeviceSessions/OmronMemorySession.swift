public import BridgeCore
import BridgeFoundation
import GATTDecoding

/// The conversation of an Omron memory-map download, as a pure state machine run inside a ``SessionMachine``
/// step (the profile's `omron` section): unlock with the pairing key, start the transmission, read the "next
/// record" index pointers, read each user's new records block by block, end the transmission.
///
/// Read-only: it never writes the device's memory (neither the unread-record counters nor the clock); its own
/// download cursor is kept in session variables per user (``OmronMemoryMap/cursorVariables(user:)``): the slot
/// after the last record downloaded and that record's bytes. Next time it first reads that record again: the same
/// bytes mean only the slots written since are new; other bytes (the ring went round, the device was reset) mean
/// the whole ring is read again, and the store drops what it already has. Without a cursor, or for a model whose
/// pointers are unknown, every slot is read. Variables change only when every step finished, so a download that
/// breaks off is repeated next time; records already received were stored as they came.
public struct OmronMemorySession: SessionProcedure {
    public typealias Status = SessionProcedureStatus

    enum Request: Sendable, Hashable {
        case unlock
        case start
        case index
        /// Reads the record the cursor says was downloaded last (part `part` of ``OmronMemoryMap/recordParts``).
        case check(user: Int, slot: Int, part: Int)
        /// Reads `count` whole records, or part `part` of one record when a record is larger than a block.
        case records(user: Int, slot: Int, count: Int, part: Int)
        case end

        var description: String {
            switch self {
            case .unlock: "unlock"
            case .start: "start of transmission"
            case .index: "read of the index pointers"
            case .check(let user, let slot, _): "read of user \(user + 1) slot \(slot) (the last record downloaded)"
            case .records(let user, let slot, let count, _):
                "read of user \(user + 1) slots \(slot)…\(slot + count - 1)"
            case .end: "end of transmission"
            }
        }
    }

    public let map: OmronMemoryMap
    public private(set) var variables: SessionVariables
    public private(set) var status: Status = .running

    private var queue: [Request] = []
    private var current: Request?
    private var attempts = 0
    private var timer: Int?
    private var writes: Set<Int> = []
    private var assembler: OmronPacketAssembler
    /// The slot the next record goes to, per user, from the index pointers.
    private var next: [Int?] = []
    /// Record bytes read this session, by user and slot.
    private var read: [[Int: [UInt8]]] = []
    /// The parts of a record read so far, when a record takes more than one read.
    private var partial: [UInt8] = []

    public init(map: OmronMemoryMap, variables: SessionVariables) {
        self.map = map
        self.variables = variables
        assembler = OmronPacketAssembler(channels: map.channels.rx.count)
        next = Array(repeating: nil, count: map.users.count)
        read = Array(repeating: [:], count: map.users.count)
    }

    /// The request being waited on, for messages.
    public var currentStep: String { "omron memory map: " + (current?.description ?? "done") }

    /// Sends the first request. `ids` is the caller's action-id counter.
    public mutating func start(ids: inout Int) -> [SessionAction] {
        queue = (map.channels.unlock == nil ? [] : [.unlock]) + [.start]
        if map.indexPointers != nil {
            queue.append(.index)
        } else {
            for user in map.users.indices { queue += reads(user: user, from: 0, count: map.users[user].count) }
            queue.append(.end)
        }
        return sendNext(ids: &ids)
    }

    public mutating func handle(_ input: SessionInput, ids: inout Int) -> [SessionAction] {
        guard status == .running else { return [] }
        if let actions = writeOrLink(input, writes: \.writes, during: current?.description, fail: { $0.fail($1) }) {
            return actions
        }
        switch input {
        case .value(let value):
            return receive(value, ids: &ids)
        case .timer(let id):
            guard id == timer, let request = current else { return [] }
            guard attempts <= map.retries else {
                return fail(
                    "no answer to the \(request.description) after \(attempts) attempts of \(SessionMachine.seconds(map.timeout))"
                )
            }
            assembler.reset()
            return send(request, ids: &ids)
        case .completed, .failed, .disconnected:
            return []
        }
    }

    // MARK: - Requests

    private mutating func fail(_ reason: String) -> [SessionAction] {
        status = .failed(reason)
        current = nil
        return []
    }

    private mutating func sendNext(ids: inout Int) -> [SessionAction] {
        guard !queue.isEmpty else {
            current = nil
            status = .finished(variables)
            return []
        }
        let request = queue.removeFirst()
        attempts = 0
        return send(request, ids: &ids)
    }

    private mutating func send(_ request: Request, ids: inout Int) -> [SessionAction] {
        current = request
        attempts += 1
        assembler.reset()
        var actions: [SessionAction] = []
        func write(_ uuid: BluetoothUUID, _ bytes: [UInt8]) {
            let id = ids
            ids += 1
            writes.insert(id)
            actions.append(.write(id: id, uuid, bytes, withResponse: true))
        }
        switch request {
        case .unlock:
            guard let unlock = map.channels.unlock else { break }
            let key =
                variables[OmronMemoryMap.keyVariable].flatMap { value -> [UInt8]? in
                    if case .bytes(let bytes) = value { return bytes }
                    return nil
                } ?? map.unlockKey ?? []
            write(unlock, map.unlockExchange(key: key).write)
        default:
            let packet: [UInt8] =
                switch request {
                case .start: OmronPacket.start
                case .end: OmronPacket.end
                case .index: OmronPacket.read(address: map.indexPointers!.address, count: map.indexPointers!.size)
                case .check(let user, let slot, let part):
                    OmronPacket.read(
                        address: map.address(user: user, slot: slot) + map.recordParts[part].offset,
                        count: map.recordParts[part].count
                    )
                case .records(let user, let slot, let count, let part):
                    map.recordParts.count > 1
                        ? OmronPacket.read(
                            address: map.address(user: user, slot: slot) + map.recordParts[part].offset,
                            count: map.recordParts[part].count
                        )
                        : OmronPacket.read(address: map.address(user: user, slot: slot), count: count * map.recordSize)
                case .unlock: []
                }
            for (index, piece) in OmronPacket.pieces(packet).enumerated() where index < map.channels.tx.count {
                write(map.channels.tx[index], piece)
            }
        }
        let id = ids
        ids += 1
        timer = id
        actions.append(.startTimer(id: id, seconds: map.timeout))
        return actions
    }

    /// The reads of `count` slots of `user` from slot `from`: runs of whole records, or each record in its parts.
    func reads(user: Int, from: Int, count: Int) -> [Request] {
        let parts = map.recordParts.indices
        return map.reads(user: user, from: from, count: count).flatMap { run -> [Request] in
            guard parts.count > 1 else { return [.records(user: run.user, slot: run.slot, count: run.count, part: 0)] }
            return (run.slot..<(run.slot + run.count)).flatMap { slot in
                parts.map { Request.records(user: run.user, slot: slot, count: 1, part: $0) }
            }
        }
    }

    /// The reads of the record the cursor names (each part of it).
    func checks(user: Int, slot: Int) -> [Request] {
        map.recordParts.indices.map { .check(user: user, slot: slot, part: $0) }
    }

    /// Adds the bytes of part `part` of a record read in parts; the whole record once its last part arrived.
    private mutating func joined(_ data: [UInt8], part: Int) -> [UInt8]? {
        if part == 0 { partial = [] }
        partial += data
        return part == map.recordParts.count - 1 ? partial : nil
    }

    // MARK: - Responses

    private mutating func receive(_ value: CharacteristicValue, ids: inout Int) -> [SessionAction] {
        guard let request = current else { return [] }
        if value.characteristic == map.channels.unlock, request == .unlock {
            guard value.bytes.starts(with: map.unlockExchange(key: []).accepted) else {
                let answer = OmronPacketError.hex(value.bytes)
                return fail(
                    map.unlockMode == .token
                        ? "the device refused the token unlock (answer \(answer)): remove its bond and pair it again "
                            + "in its pairing mode"
                        : "the device refused the unlock key (answer \(answer)): pair it in its pairing mode with the "
                            + "key the profile or the variable omronKey gives"
                )
            }
            return sendNext(ids: &ids)
        }
        guard let channel = map.channels.rx.firstIndex(of: value.characteristic),
            let packet = assembler.add(value.bytes, channel: channel)
        else { return [] }
        let response: OmronResponse
        do {
            response = try OmronResponse(packet: packet)
        } catch {
            // A damaged packet: the timer sends the request again.
            return []
        }
        switch request {
        case .unlock:
            return []
        case .start:
            guard response.type == 0x8000 else {
                return fail("unexpected answer to the start of transmission: \(OmronPacketError.hex(packet))")
            }
        case .end:
            guard response.type == 0x8F00 else {
                return fail("unexpected answer to the end of transmission: \(OmronPacketError.hex(packet))")
            }
            if let code = response.data.first, code != 0 {
                return fail("the device ended the transmission with error status \(code)")
            }
            finishCursors()
        case .index:
            guard response.type == 0x8100, response.address == map.indexPointers?.address else { return [] }
            plan(index: response.data)
        case .check(let user, let slot, let part):
            let (offset, size) = map.recordParts[part]
            guard response.type == 0x8100, response.address == map.address(user: user, slot: slot) + offset,
                response.data.count == size
            else { return [] }
            guard let record = joined(response.data, part: part) else { break }
            read[user][slot] = record
            let names = OmronMemoryMap.cursorVariables(user: user)
            let cursor = variables[names.next]?.integer ?? 0
            let known = variables[names.last]
            let newCount = next[user].map { ($0 - cursor + map.users[user].count) % map.users[user].count } ?? 0
            if known == .bytes(record) {
                queue.insert(
                    contentsOf: reads(user: user, from: cursor, count: newCount),
                    at: queuePosition(user: user)
                )
            } else {
                queue.insert(contentsOf: fullRead(user: user), at: queuePosition(user: user))
            }
        case .records(let user, let slot, let count, let part):
            if map.recordParts.count > 1 {
                let (offset, size) = map.recordParts[part]
                guard response.type == 0x8100, response.address == map.address(user: user, slot: slot) + offset,
                    response.data.count == size
                else { return [] }
                if let record = joined(response.data, part: part) { read[user][slot] = record }
                break
            }
            guard response.type == 0x8100, response.address == map.address(user: user, slot: slot),
                response.data.count == count * map.recordSize
            else { return [] }
            for index in 0..<count {
                read[user][slot + index] = Array(
                    response.data[(index * map.recordSize)..<((index + 1) * map.recordSize)]
                )
            }
        }
        return sendNext(ids: &ids)
    }

    /// Where a user's reads go in the queue: before the next user's requests and the end.
    private func queuePosition(user: Int) -> Int {
        queue.firstIndex { request in
            switch request {
            case .check(let other, _, _), .records(let other, _, _, _): other > user
            case .end: true
            default: false
            }
        } ?? queue.count
    }

    private func fullRead(user: Int) -> [Request] {
        reads(user: user, from: next[user] ?? 0, count: map.users[user].count)
    }

    /// Plans each user's reads from the index pointers and the cursor.
    private mutating func plan(index block: [UInt8]) {
        guard let pointers = map.indexPointers else { return }
        for user in map.users.indices {
            let count = map.users[user].count
            next[user] = user < pointers.users.count ? pointers.users[user].nextSlot(in: block, count: count) : nil
            let names = OmronMemoryMap.cursorVariables(user: user)
            if next[user] != nil, let cursor = variables[names.next]?.integer, (0..<count).contains(cursor),
                variables[names.last] != nil
            {
                queue += checks(user: user, slot: (cursor - 1 + count) % count)
            } else {
                queue += fullRead(user: user)
            }
        }
        queue.append(.end)
    }

    /// The new cursors: each user's pointer and the bytes of the record before it, when both are known.
    private mutating func finishCursors() {
        for user in map.users.indices {
            guard let pointer = next[user] else { continue }
            let count = map.users[user].count
            let last = (pointer - 1 + count) % count
            guard let bytes = read[user][last] else { continue }
            let names = OmronMemoryMap.cursorVariables(user: user)
            variables[names.next] = .integer(pointer)
            variables[names.last] = .bytes(bytes)
        }
    }
}
