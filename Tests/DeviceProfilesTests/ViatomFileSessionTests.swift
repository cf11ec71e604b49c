import BridgeCore
import BridgeFoundation
import DeviceProfiles
import DeviceSessions
import Foundation
import GATTDecoding
import TestSupport
import Testing

/// The shipped `viatom-o2ring` profile's session against a simulated ring (``ViatomRing``): each file is read once,
/// a damaged answer is asked for again and stored once, an interrupted download saves no cursor and is read again
/// without duplicate samples, and the bridge never sends anything but read commands.
@Suite struct ViatomFileSessionTests {
    static let catalog = DeviceProfileLoader.load(directories: [ProfileCatalogueTests.devices]).catalog
    static let profile = catalog.profile(id: "viatom-o2ring")!
    static let download = profile.viatom!
    static let start = Date(timeIntervalSince1970: 1_795_000_000)
    static let utc = TimeZone(identifier: "UTC")!

    /// A night from 23:59:52 on 2026-11-27: records 4 s apart, SpO2 95 + index % 4, pulse 60 + index.
    static let night = ViatomRing.file(
        start: (2026, 11, 27, 23, 59, 52),
        records: (0..<6).map { [UInt8(95 + $0 % 4), UInt8(60 + $0), 0, 0, 0] }
    )
    /// A nap with a finger-out record (FF FF, flag 1) between two readings.
    static let nap = ViatomRing.file(
        start: (2026, 11, 28, 14, 0, 0),
        interval: 2,
        records: [[97, 70, 0, 1, 0], [0xFF, 0xFF, 1, 0, 0], [96, 71, 0, 0, 0]]
    )

    static func ring(_ files: [(String, [UInt8])], blockSize: Int = 16) -> ViatomRing {
        var ring = ViatomRing(download: download)
        ring.files = files.map { (name: $0.0, bytes: $0.1) }
        ring.blockSize = blockSize
        return ring
    }

    struct Run {
        var outcome: SimulatedSession.Outcome
        var ring: ViatomRing
        var variables: SessionVariables
        var read: StreamedRecords {
            ViatomRing.read(outcome.events, download: ViatomFileSessionTests.download, zone: utc)
        }
        var files: [String] { ViatomDownload.names(in: variables[ViatomDownload.cursorVariable]) }
    }

    static func run(_ ring: ViatomRing, variables: SessionVariables = [:]) -> Run {
        var ring = ring
        let outcome = SimulatedSession.run(
            profile.session,
            variables: variables,
            device: "02:00:00:00:00:62",
            start: start,
            timeZone: utc
        ) { uuid, bytes in ring.answer(uuid, bytes) }
        var kept = variables
        for (name, value) in outcome.persisted { kept[name] = value }
        return Run(outcome: outcome, ring: ring, variables: kept)
    }

    @Test func theProfileDownloadsFilesOnItsVendorCharacteristicsAndKeepsTheFilesRead() {
        #expect(Self.profile.session.steps.last == .viatomFiles(Self.download))
        #expect(Self.profile.session.persist.contains(ViatomDownload.cursorVariable))
        #expect(Self.profile.connectionPlan.subscribe == [ViatomDownload.defaultNotify])
        #expect(Self.profile.session.writtenCharacteristics == [ViatomDownload.defaultWrite])
    }

    @Test func eachRecordIsStoredAtTheFileStartPlusItsOffsetAcrossMidnightAndTheFingerOutRecordIsNot() throws {
        let run = Self.run(Self.ring([("20261127235952", Self.night), ("20261128140000", Self.nap)]))
        #expect(run.outcome.failure == nil)
        let read = run.read
        #expect(read.problems.isEmpty && read.warnings.isEmpty, "\(read.problems) \(read.warnings)")
        let spo2 = read.samples.filter { $0.type == .oxygenSaturation }
        let file = spo2.filter { $0.metadata["live"] == nil }
        #expect(
            file.map { $0.deviceTime!.description } == [
                "2026-11-27T23:59:52", "2026-11-27T23:59:56", "2026-11-28T00:00:00", "2026-11-28T00:00:04",
                "2026-11-28T00:00:08", "2026-11-28T00:00:12", "2026-11-28T14:00:00", "2026-11-28T14:00:04",
            ],
            "start + index × interval; the record after midnight is on the next day; the finger-out record is skipped"
        )
        #expect(file.map(\.value) == [95, 96, 97, 98, 95, 96, 97, 96])
        #expect(!read.samples.contains { $0.value == 255 }, "the FF marker is never a value")
        let pulses = read.samples.filter { $0.type == .heartRate && $0.metadata["live"] == nil }
        #expect(pulses.map(\.value) == [60, 61, 62, 63, 64, 65, 70, 71])
        #expect(read.records == 9)
        #expect(spo2.filter { $0.metadata["live"] == "true" }.map(\.value) == [98], "the live reading at the end")
        #expect(read.deviceClock == DateTime(year: 2026, month: 11, day: 28, hours: 7, minutes: 0, seconds: 0))
    }

    @Test func eachFileIsDownloadedOnceAndNothingButReadsIsSent() {
        let first = Self.run(Self.ring([("20261127235952", Self.night)]))
        #expect(first.outcome.failure == nil)
        #expect(first.ring.opened == ["20261127235952"])
        #expect(first.files == ["20261127235952"])
        var ring = first.ring
        ring.files.append((name: "20261128140000", bytes: Self.nap))
        let second = Self.run(ring, variables: first.variables)
        #expect(second.ring.opened == ["20261127235952", "20261128140000"], "only the new file is opened")
        #expect(second.files == ["20261127235952", "20261128140000"])
        let third = Self.run(second.ring, variables: second.variables)
        #expect(third.ring.opened.count == 2, "nothing new: nothing opened")
        // A file the ring no longer lists leaves the cursor.
        var emptied = third.ring
        emptied.files.removeFirst()
        #expect(Self.run(emptied, variables: third.variables).files == ["20261128140000"])
        let commands = Set(third.ring.commands.map(\.command))
        #expect(commands == [0x14, 0x03, 0x04, 0x05, 0x17], "information, open, read, close, live: no delete, no set")
    }

    @Test func aResponseWhoseCRCFailsIsAskedForAgainAndStoredOnce() {
        var ring = Self.ring([("20261127235952", Self.night)])
        ring.corruptAnswers = [4]  // the second block's answer (after information, open, block 0)
        let run = Self.run(ring)
        #expect(run.outcome.failure == nil)
        #expect(run.ring.commands.filter { $0.command == 0x04 }.map(\.block) == [0, 1, 1, 2, 3, 4])
        let read = run.read
        #expect(read.warnings.count == 1 && read.warnings[0].contains("file read response refused: CRC-8"))
        let file = read.samples.filter { $0.metadata["live"] == nil }
        #expect(file.count == 12)
        #expect(Set(file.map { $0.idFromKey() }).count == 12, "no sample twice")
    }

    @Test func aResponseThatStaysDamagedFailsTheSessionSayingWhichAndStoresNothing() {
        var ring = Self.ring([("20261127235952", Self.night)])
        ring.corruptAnswers = [3, 4, 5]  // block 0, asked three times
        let run = Self.run(ring)
        let failure = run.outcome.failure ?? ""
        #expect(failure.contains("read of file 20261127235952 block 0"), "\(failure)")
        #expect(failure.contains("CRC-8") && failure.contains("after 3 attempts"), "\(failure)")
        #expect(run.outcome.persisted.isEmpty)
        #expect(run.read.samples.isEmpty)
    }

    @Test func anInterruptedDownloadSavesNoCursorAndIsReadAgainWithoutDuplicates() {
        // The night is read whole; the nap's first block is the last answer before the link goes.
        var ring = Self.ring([("20261127235952", Self.night), ("20261128140000", Self.nap)])
        ring.silentAfterReads = 6
        let first = Self.run(ring)
        #expect(first.outcome.failure?.contains("read of file 20261128140000 block 1") == true)
        #expect(first.outcome.persisted.isEmpty && first.files.isEmpty, "no cursor moves")
        let partial = first.read.samples
        #expect(partial.count == 12, "the night's samples, none of the unfinished nap")
        var back = first.ring
        back.silentAfterReads = nil
        let second = Self.run(back, variables: first.variables)
        #expect(second.outcome.failure == nil)
        #expect(second.files == ["20261127235952", "20261128140000"])
        let again = second.read.samples.filter { $0.metadata["live"] == nil }
        #expect(again.count == 16)
        let ids = Set(again.map { $0.idFromKey() })
        #expect(ids.count == 16)
        #expect(Set(partial.map { $0.idFromKey() }).isSubset(of: ids), "the same samples, which the store drops")
    }
}
