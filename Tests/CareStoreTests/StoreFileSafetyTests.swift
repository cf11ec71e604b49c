import CareStore
import Foundation
import Logging
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The store path is never a symbolic link or someone else's file: either would let another user read or redirect
/// the health data.
@Suite struct StoreFileSafetyTests {
    /// This test's directory, removed when the test ends.
    let scratch: ScratchDirectory
    var directory: String { scratch.path }

    init() throws { scratch = try ScratchDirectory("store-safety-") }

    func open(_ path: String) throws(CareStoreError) -> CareStore {
        try CareStore(path: path, bridgeZone: TimeZone(identifier: "UTC")!, logger: .quiet)
    }

    func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) & 0o777
    }

    @Test func aDanglingSymlinkIsRefusedAndItsTargetNeverCreated() throws {
        let target = directory + "/elsewhere.sqlite"
        let link = directory + "/store.sqlite"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(throws: CareStoreError.self) { try open(link) }
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test func aSymlinkToAnExistingStoreIsRefused() throws {
        let real = directory + "/real.sqlite"
        _ = try open(real)
        let link = directory + "/link.sqlite"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        do {
            _ = try open(link)
            Issue.record("opened through a symlink")
        } catch {
            #expect(error.description.contains("symbolic link"), "\(error)")
        }
    }

    @Test func aSymlinkedWALCompanionIsRefused() throws {
        let path = directory + "/store.sqlite"
        try FileManager.default.createSymbolicLink(atPath: path + "-wal", withDestinationPath: directory + "/x")
        #expect(throws: CareStoreError.self) { try open(path) }
    }

    @Test func aFilePreCreatedByAnotherUserIsRefused() throws {
        let path = directory + "/store.sqlite"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        // Only root can give a file away; as another user the file stays ours and is accepted (checked below).
        guard geteuid() == 0 else {
            _ = try open(path)
            return
        }
        #expect(chown(path, 65534, 65534) == 0)
        do {
            _ = try open(path)
            Issue.record("opened a file owned by uid 65534")
        } catch {
            #expect(error.description.contains("belongs to uid 65534"), "\(error)")
        }
    }

    @Test func anExistingFileOfOursThatOthersCouldReadIsNarrowedTo0600() throws {
        let path = directory + "/store.sqlite"
        #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644]))
        #expect(try mode(path) == 0o644)
        _ = try open(path)
        #expect(try mode(path) == 0o600)
    }
}
