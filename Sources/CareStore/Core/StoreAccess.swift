import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What this process may do with a store file, checked before SQLite opens it so that the error can say whose
/// file it is and what to do, rather than SQLite's "unable to open database file" (error 14) or "attempt to write
/// a readonly database".
enum StoreAccess {
    enum Level: Equatable {
        /// The file does not exist yet.
        case missing
        /// The file and its directory are writable (SQLite needs to create `-wal` and `-shm` there).
        case readWrite
        /// The file can be read but not written.
        case readOnly
    }

    /// The access this process has to the store at `path`.
    /// - Throws: ``CareStoreError`` (`.storeLocation`) when the path is a directory or the file cannot be read.
    static func level(of path: String) throws(CareStoreError) -> Level {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT { return .missing }
            if errno == EACCES {
                throw CareStoreError(
                    .storeLocation,
                    "cannot open store \(path): a directory on the way is not accessible to \(currentUser())"
                        + directoryHint(path)
                )
            }
            throw CareStoreError(.storeLocation, "cannot open store \(path): \(String(cString: strerror(errno)))")
        }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            throw CareStoreError(
                .storeLocation,
                "\(path) is a directory; --store names the store file, e.g. \(path)/store.sqlite"
            )
        }
        guard access(path, R_OK) == 0 else {
            throw CareStoreError(.storeLocation, notPermitted(path, status: status, what: "read"))
        }
        let directory = (path as NSString).deletingLastPathComponent
        if access(path, W_OK) == 0, access(directory.isEmpty ? "." : directory, W_OK) == 0 { return .readWrite }
        return .readOnly
    }

    /// The message for a store this user may not read or write: whose file it is and what to do.
    static func notPermitted(_ path: String, status: stat, what: String) -> String {
        let owner = userName(status.st_uid)
        let mode = String(status.st_mode & 0o777, radix: 8)
        let me = currentUser()
        return "cannot \(what) store \(path): it belongs to \(owner) (mode \(mode)) and you are \(me). "
            + "Run the command as \(owner) (sudo -u \(owner) carebridge …); if the file should be yours (created "
            + "by another user by mistake): sudo chown \(me): \(path)*; or use another --store"
    }

    /// Why writing is refused, for a store that can be read but not written.
    static func readOnlyMessage(_ path: String) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else { return "cannot write store \(path)" }
        if access(path, W_OK) != 0 { return notPermitted(path, status: status, what: "write") }
        let directory = (path as NSString).deletingLastPathComponent
        var directoryStatus = stat()
        _ = stat(directory.isEmpty ? "." : directory, &directoryStatus)
        return "cannot write store \(path): its directory \(directory) belongs to \(userName(directoryStatus.st_uid)) "
            + "and you are \(currentUser()); SQLite needs to create \(path)-wal there. Run the command as "
            + "\(userName(directoryStatus.st_uid)) or use another --store"
    }

    private static func directoryHint(_ path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        var status = stat()
        guard stat(directory, &status) == 0 else { return "" }
        return " (\(directory) belongs to \(userName(status.st_uid)), mode \(String(status.st_mode & 0o777, radix: 8)))"
    }

    static func userName(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return String(cString: name)
    }

    static func currentUser() -> String { userName(geteuid()) }
}
