import BridgeCore
import BridgeFoundation
import DeviceProfiles
import DeviceSessions
import Foundation
import GATTDecoding
import TestSupport
import Testing

/// No session of any shipped Omron profile ever writes what could clear the cuff's memory: the memory-map cuffs get
/// only start, read and end commands (never a write, 01 C0), reads only inside the record rings and the index block,
/// and an unlock only with the stored key (never 02, which programs a new one); the SIG and Option Service cuffs
/// never get a Record Access Control Point delete (02) or a vendor clear.
@Suite struct OmronWriteSafetyTests {
    static let catalog = DeviceProfileLoader.load(directories: [ProfileCatalogueTests.devices]).catalog
    static let omronProfiles = catalog.profiles.filter { $0.omron != nil || $0.id.hasPrefix("omron-") }.map(\.id)
    static let memoryMapProfiles = catalog.profiles.filter { $0.omron != nil }.map(\.id)
    static let key = try! Hex.bytes("deadbeaf12341234deadbeaf12341234")
    static let start = Date(timeIntervalSince1970: 1_795_000_000)
    static let racp = BluetoothUUID("2A52")!

    /// Every write a session step can make, through branches and loops (the memory-map step writes at run time).
    static func writes(_ steps: [SessionStep]) -> [SessionStep.Write] {
        steps.flatMap { step -> [SessionStep.Write] in
            switch step {
            case .write(let write): [write]
            case .branch(_, let then, let otherwise): writes(then) + writes(otherwise)
            case .repeatUntil(let loop): writes(loop.steps)
            default: []
            }
        }
    }

    /// A cuff with `records` records in each user's ring (bytes that are neither empty marker).
    static func device(_ map: OmronMemoryMap, records: Int, key: [UInt8] = key) -> OmronMemoryDevice {
        var device = OmronMemoryDevice(map: map, key: key)
        for user in map.users.indices {
            for index in 0..<records {
                device.measure(user: user, record: (0..<map.recordSize).map { UInt8((index + user + $0) % 200 + 1) })
            }
        }
        return device
    }

    /// The session run against `device`; its persisted variables added to `variables`.
    static func run(
        _ profile: DeviceProfile,
        _ device: inout OmronMemoryDevice,
        variables: SessionVariables = [:]
    ) -> (outcome: SimulatedSession.Outcome, variables: SessionVariables) {
        let outcome = SimulatedSession.run(
            profile.session,
            variables: variables,
            device: "02:00:00:00:00:62",
            start: start,
            timeZone: TimeZone(identifier: "UTC")!
        ) { uuid, bytes in device.answer(uuid, bytes) }
        var kept = variables
        for (name, value) in outcome.persisted { kept[name] = value }
        return (outcome, kept)
    }

    /// The byte ranges a read may cover: each user's ring and the index block.
    static func readable(_ map: OmronMemoryMap) -> [Range<Int>] {
        map.users.map { $0.start..<($0.start + $0.count * map.recordSize) }
            + (map.indexPointers.map { [$0.address..<($0.address + $0.size)] } ?? [])
    }

    @Test func theCatalogueHasOmronProfilesOfBothKinds() {
        #expect(Self.memoryMapProfiles.count >= 10)
        #expect(Self.omronProfiles.count > Self.memoryMapProfiles.count)
    }

    @Test func theHBFScalesAreHeldToTheCuffsRules() throws {
        // The scales' vendor app resets the unread counters and writes the clock (01 C0), and openScale programs a key
        // (02, then 00 + key): the memory-map sessions below check that neither is ever sent to them either.
        for id in ["omron-hbf-222t", "omron-bcm-500", "omron-hbf-702t"] {
            #expect(Self.memoryMapProfiles.contains(id), "\(id) is checked as a memory-map profile")
            let map = try #require(Self.catalog.profile(id: id)?.omron)
            #expect(map.channels == .classic && map.unlockMode == .key)
            #expect(map.indexPointers == nil, "no write pointers are read: every read stays inside a user's ring")
        }
    }

    @Test(
        "a memory-map session only starts, reads inside the rings and index block, and ends; first contact, a later one, a wrong key",
        arguments: memoryMapProfiles
    )
    func memoryMapSessionsNeverWriteTheCuffsMemory(id: String) throws {
        let profile = try #require(Self.catalog.profile(id: id))
        let map = try #require(profile.omron)
        var device = Self.device(map, records: 3)
        let first = Self.run(profile, &device)
        #expect(first.outcome.failure == nil, "\(id): \(first.outcome.failure ?? "")")
        for index in 0..<(map.users[0].count + 2) {
            device.measure(user: 0, record: (0..<map.recordSize).map { UInt8((index * 7 + $0) % 200 + 1) })
        }
        let later = Self.run(profile, &device, variables: first.variables)
        #expect(later.outcome.failure == nil, "\(id): \(later.outcome.failure ?? "")")
        var refused = Self.device(map, records: 1, key: Array(repeating: 0x11, count: 16))
        let wrongKey = Self.run(profile, &refused)

        let ranges = Self.readable(map)
        for command in device.commands + refused.commands {
            let type = UInt16(command[1]) << 8 | UInt16(command[2])
            #expect(
                [OmronPacket.startType, OmronPacket.readType, OmronPacket.endType].contains(type),
                "\(id): command \(Hex.string(command)) is not start, read or end"
            )
            guard type == OmronPacket.readType else { continue }
            let address = Int(command[3]) << 8 | Int(command[4])
            let span = address..<(address + Int(command[5]))
            #expect(
                ranges.contains { $0.lowerBound <= span.lowerBound && span.upperBound <= $0.upperBound },
                "\(id): read \(span) outside the rings and the index block"
            )
        }
        for outcome in [first.outcome, later.outcome, wrongKey.outcome] {
            for event in outcome.events {
                guard case .written(let write) = event.kind else { continue }
                #expect(
                    map.channels.tx.contains(write.characteristic) || write.characteristic == map.channels.unlock,
                    "\(id): a write to \(write.characteristic), not a transmit or the unlock channel"
                )
                if write.characteristic == map.channels.unlock {
                    #expect(
                        [0x01, 0x11].contains(write.bytes.first),
                        "\(id): unlock \(Hex.string(write.bytes)) is neither 01 + key nor the 11 token (02 would program a key, 00 store one)"
                    )
                }
            }
        }
    }

    @Test("no Omron profile's session writes a Record Access Control Point delete", arguments: omronProfiles)
    func noSessionDeletesStoredRecords(id: String) throws {
        let profile = try #require(Self.catalog.profile(id: id))
        for write in Self.writes(profile.session.steps) where write.characteristic == Self.racp {
            guard case .bytes(let prefix) = write.value.parts.first else {
                Issue.record("\(id): a control-point write must start with a literal opcode: \(write.value)")
                continue
            }
            #expect(prefix.first != 0x02, "\(id): \(write.value) is Delete Stored Records")
        }
        // Memory-map commands are built by the engine, never written by the profile's own steps.
        for write in Self.writes(profile.session.steps) {
            #expect(profile.omron?.channels.tx.contains(write.characteristic) != true, "\(id): \(write.value)")
        }
    }
}
