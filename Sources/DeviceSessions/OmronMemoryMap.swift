public import BridgeFoundation
import GATTDecoding

/// One model's memory map for the Omron memory-map protocol (the older HEM cuffs and HBF scales): where each
/// user's record ring is, how big a record is and how its fields are laid out, where the "next record" index
/// pointers are, and the vendor characteristics the packets travel on.
///
/// Read from a profile's `omron` section. The session engine (``OmronMemorySession``) and the pipeline's record
/// reader (``OmronRecordReader``) are driven by it alone: a new model is a new profile, never new code.
public struct OmronMemoryMap: Sendable, Hashable {
    /// One user's record ring: `count` records of ``recordSize`` bytes from `start`.
    public struct UserArea: Sendable, Hashable {
        public var start: Int
        public var count: Int

        public init(start: Int, count: Int) {
            self.start = start
            self.count = count
        }
    }

    /// Where the device keeps, per user, the slot its next (or last) record goes to.
    public struct IndexPointers: Sendable, Hashable {
        /// The pointers' block: read once per session (`address`, `size` bytes).
        public var address: Int
        public var size: Int
        public var users: [Pointer]

        public struct Pointer: Sendable, Hashable {
            /// Byte offset of the 16-bit pointer in the block.
            public var offset: Int
            public var bigEndian: Bool
            /// Bits of the 16-bit value that hold the slot.
            public var mask: Int
            /// True: the value is the slot the next record goes to; false: the slot of the last record written.
            public var pointsToNext: Bool

            public init(offset: Int, bigEndian: Bool, mask: Int = 0xFF, pointsToNext: Bool = true) {
                self.offset = offset
                self.bigEndian = bigEndian
                self.mask = mask
                self.pointsToNext = pointsToNext
            }

            /// The slot the next record goes to, in `0..<count`, read from the pointers' block; nil when the
            /// block is too short or the value is outside the ring.
            public func nextSlot(in block: [UInt8], count: Int) -> Int? {
                guard offset >= 0, offset + 2 <= block.count, count > 0 else { return nil }
                let high = Int(block[offset + (bigEndian ? 0 : 1)])
                let low = Int(block[offset + (bigEndian ? 1 : 0)])
                let raw = (high << 8 | low) & mask
                let next = pointsToNext ? raw : raw + 1
                guard next >= 0, next <= count else { return nil }
                return next % count
            }
        }

        public init(address: Int, size: Int, users: [Pointer]) {
            self.address = address
            self.size = size
            self.users = users
        }
    }

    /// How a device is unlocked on its unlock characteristic (when it has one).
    public enum UnlockMode: String, Sendable, Hashable, CaseIterable {
        /// `01` + the 16-byte key the device was paired with; the answer is `81 00`.
        case key
        /// The stateless token handshake of the FE4A cuffs: `11` + 4 bytes of the collector's choice + 15 zero
        /// bytes; the device answers `91 00` and echoes the 4 bytes. Not a stored secret.
        case token
    }

    /// The 4 bytes the bridge offers in a token unlock (`CBRG`): the device echoes whatever it is sent.
    public static let unlockToken: [UInt8] = [0x43, 0x42, 0x52, 0x47]

    /// The bytes written to the unlock characteristic, and the prefix of the answer that accepts them.
    public func unlockExchange(key: [UInt8]) -> (write: [UInt8], accepted: [UInt8]) {
        switch unlockMode {
        case .key: ([0x01] + key, [0x81, 0x00])
        case .token: ([0x11] + Self.unlockToken + Array(repeating: 0, count: 15), [0x91, 0x00] + Self.unlockToken)
        }
    }

    /// The vendor service's characteristics.
    public struct Channels: Sendable, Hashable {
        /// Written with command packets, 16 bytes per channel.
        public var tx: [BluetoothUUID]
        /// Notify the response packets, 16 bytes per channel.
        public var rx: [BluetoothUUID]
        /// The unlock (pairing key) characteristic: written and notifying.
        public var unlock: BluetoothUUID?

        public init(tx: [BluetoothUUID], rx: [BluetoothUUID], unlock: BluetoothUUID?) {
            self.tx = tx
            self.rx = rx
            self.unlock = unlock
        }

        /// The characteristics published by omblepy for the HEM cuffs (service ecbe3980-c9a2-11e1-b1bd-0002a5d5c51b).
        public static let classic = Channels(
            tx: [
                "db5b55e0-aee7-11e1-965e-0002a5d5c51b", "e0b8a060-aee7-11e1-92f4-0002a5d5c51b",
                "0ae12b00-aee8-11e1-a192-0002a5d5c51b", "10e1ba60-aee8-11e1-89e5-0002a5d5c51b",
            ].compactMap { BluetoothUUID($0) },
            rx: [
                "49123040-aee8-11e1-a74d-0002a5d5c51b", "4d0bf320-aee8-11e1-a0d9-0002a5d5c51b",
                "5128ce60-aee8-11e1-b84b-0002a5d5c51b", "560f1420-aee8-11e1-8184-0002a5d5c51b",
            ].compactMap { BluetoothUUID($0) },
            unlock: BluetoothUUID("b305b680-aee7-11e1-a730-0002a5d5c51b")
        )
    }

    /// The model, for messages (e.g. `HEM-7361T`).
    public var model: String
    public var users: [UserArea]
    public var recordSize: Int
    /// Largest number of bytes one read asks for: a read asks for `max(1, blockSize / recordSize)` whole
    /// records, or, when a record is larger than a block (the HBF-702T's 48-byte records, read 32 bytes at a
    /// time as openScale does), for one ``recordParts`` part of a record.
    public var blockSize: Int
    public var layout: OmronRecordLayout
    /// Nil: the model's pointers are unknown, and every session reads every slot (the store drops what it has).
    public var indexPointers: IndexPointers?
    public var channels: Channels
    /// The 16-byte key written to unlock the device, unless the device's session variable `omronKey` holds one.
    public var unlockKey: [UInt8]?
    /// How the unlock characteristic is used: with the stored key, or the stateless token handshake.
    public var unlockMode: UnlockMode = .key
    /// Seconds to wait for a response before the request is sent again.
    public var timeout: Double
    /// How often a request is sent again before the session fails.
    public var retries: Int

    public init(
        model: String,
        users: [UserArea],
        recordSize: Int,
        blockSize: Int,
        layout: OmronRecordLayout,
        indexPointers: IndexPointers? = nil,
        channels: Channels = .classic,
        unlockKey: [UInt8]? = nil,
        timeout: Double = 5,
        retries: Int = 3
    ) {
        self.model = model
        self.users = users
        self.recordSize = recordSize
        self.blockSize = blockSize
        self.layout = layout
        self.indexPointers = indexPointers
        self.channels = channels
        self.unlockKey = unlockKey
        self.timeout = timeout
        self.retries = retries
    }

    /// Records one read asks for.
    public var recordsPerRead: Int { max(1, blockSize / max(1, recordSize)) }

    /// The reads one record takes, as (offset in the record, byte count): the whole record when it fits in a
    /// block, else `blockSize` bytes at a time with a shorter last part.
    public var recordParts: [(offset: Int, count: Int)] {
        let block = max(1, blockSize)
        guard recordSize > block else { return [(0, recordSize)] }
        return stride(from: 0, to: recordSize, by: block).map { ($0, min(block, recordSize - $0)) }
    }

    /// The user (0-based) and slot of the record at `address`, when it is the start of a slot of a user area.
    public func slot(at address: Int) -> (user: Int, slot: Int)? {
        for (user, area) in users.enumerated() {
            let offset = address - area.start
            guard offset >= 0, offset < area.count * recordSize, offset % recordSize == 0 else { continue }
            return (user, offset / recordSize)
        }
        return nil
    }

    /// The address of `slot` of `user`.
    public func address(user: Int, slot: Int) -> Int { users[user].start + slot * recordSize }

    /// Session variables that keep the download cursor of user `user` (0-based): the slot after the last record
    /// downloaded, and that record's bytes (to notice a ring that went round or a device that was reset).
    public static func cursorVariables(user: Int) -> (next: String, last: String) {
        ("omronNext\(user + 1)", "omronLast\(user + 1)")
    }

    /// Every variable a finished session persists.
    public var persistedVariables: [String] {
        users.indices.flatMap { user in
            let names = Self.cursorVariables(user: user)
            return [names.next, names.last]
        }
    }

    /// Consecutive slots of one user read with one request.
    public struct ReadRun: Sendable, Hashable {
        public var user: Int
        public var slot: Int
        public var count: Int

        public init(user: Int, slot: Int, count: Int) {
            self.user = user
            self.slot = slot
            self.count = count
        }
    }

    /// The reads for `count` slots of `user` from slot `from`, oldest first: whole records, at most
    /// ``recordsPerRead`` per read, wrapping at the end of the ring, never more than the ring holds.
    public func reads(user: Int, from: Int, count: Int) -> [ReadRun] {
        let size = users[user].count
        var runs: [ReadRun] = []
        var slot = from % max(1, size)
        var left = min(count, size)
        while left > 0 {
            let run = min(left, recordsPerRead, size - slot)
            runs.append(ReadRun(user: user, slot: slot, count: run))
            left -= run
            slot = (slot + run) % size
        }
        return runs
    }

    /// The device's own key overrides the profile's (variable `omronKey`, 16 bytes).
    public static let keyVariable = "omronKey"
}

extension OmronMemoryMap {
    /// What the transport subscribes to: the receive channels and the unlock characteristic.
    public var subscriptions: [BluetoothUUID] { channels.rx + (channels.unlock.map { [$0] } ?? []) }
}
