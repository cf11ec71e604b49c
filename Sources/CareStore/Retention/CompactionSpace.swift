public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The disk space SQLite's `VACUUM` needs to compact a store, and what there is.
///
/// `VACUUM` copies the live pages into a temporary database (in SQLite's temporary directory) and then writes
/// them back through the write-ahead log next to the store: about the store's size in each place, twice that
/// when both are on one file system. On a disk that is full it fails at the same point every time; checked
/// before anything is changed, it says how much to free and where.
public struct CompactionSpace: Sendable, Hashable {
    /// One file system the compaction writes to.
    public struct Place: Sendable, Hashable {
        /// The directory (the store's, or the temporary directory).
        public var directory: String
        /// Bytes the compaction writes there.
        public var needed: Int
        /// Bytes free there for this user (nil: not known).
        public var free: Int?

        /// Whether it may not fit.
        public var isShort: Bool { free.map { $0 < needed } ?? false }
    }

    /// The store's size (file and log), the most a compaction writes in each place.
    public var storeBytes: Int
    /// The store's directory, and the temporary directory when it is on another file system.
    public var places: [Place]

    /// The places that lack room.
    public var shortages: [Place] { places.filter(\.isShort) }

    /// The space compacting the store at `path` needs, with `environment` naming SQLite's temporary directory.
    public static func measure(
        path: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> CompactionSpace {
        let storeBytes = CareStore.fileSize(path) + CareStore.fileSize(path + "-wal")
        let storeDirectory = (path as NSString).deletingLastPathComponent
        let directory = storeDirectory.isEmpty ? "." : storeDirectory
        let temporary = temporaryDirectory(environment: environment)
        let storeSystem = fileSystem(directory)
        let temporarySystem = fileSystem(temporary)
        if let storeSystem, storeSystem.device == temporarySystem?.device {
            return CompactionSpace(
                storeBytes: storeBytes,
                places: [Place(directory: directory, needed: 2 * storeBytes, free: storeSystem.free)]
            )
        }
        return CompactionSpace(
            storeBytes: storeBytes,
            places: [
                Place(directory: directory, needed: storeBytes, free: storeSystem?.free),
                Place(directory: temporary, needed: storeBytes, free: temporarySystem?.free),
            ]
        )
    }

    /// The directory SQLite puts temporary databases in on Unix: `SQLITE_TMPDIR`, `TMPDIR`, `/var/tmp`,
    /// `/usr/tmp`, `/tmp`, the first that is a directory this process may write, else `.`.
    static func temporaryDirectory(environment: [String: String]) -> String {
        let candidates = [environment["SQLITE_TMPDIR"], environment["TMPDIR"], "/var/tmp", "/usr/tmp", "/tmp"]
        for candidate in candidates.compactMap({ $0 }) where !candidate.isEmpty {
            var status = stat()
            if stat(candidate, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR,
                access(candidate, W_OK | X_OK) == 0
            {
                return candidate
            }
        }
        return "."
    }

    /// The device and the bytes free to this user of the file system holding `directory`.
    static func fileSystem(_ directory: String) -> (device: UInt64, free: Int)? {
        var status = stat()
        var system = statvfs()
        guard stat(directory, &status) == 0, statvfs(directory, &system) == 0 else { return nil }
        let free = UInt64(system.f_bavail).multipliedReportingOverflow(by: UInt64(system.f_frsize))
        return (UInt64(status.st_dev), free.overflow ? Int.max : Int(clamping: free.partialValue))
    }

    /// What to tell someone whose disk lacks room, or nil when every place has enough.
    /// - Parameter bytes: formats a byte count for people.
    public func shortageMessage(bytes: (Int) -> String) -> String? {
        let short = shortages
        guard !short.isEmpty else { return nil }
        let what = short.map { place in
            "\(bytes(place.needed)) free in \(place.directory) (there are \(bytes(place.free ?? 0)))"
        }
        return "compacting the store needs about " + what.joined(separator: " and ")
            + ": SQLite's VACUUM copies the store (\(bytes(storeBytes))) into its temporary directory and writes it "
            + "back through the write-ahead log beside it. Free space there, or set TMPDIR to a directory on "
            + "a disk with room for the copy, and run it again"
    }
}
