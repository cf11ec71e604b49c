public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the store file lives and how it is created: mode 0600 in a 0700 directory, because it holds health data.
public enum StoreLocation {
    /// The environment variable that overrides the default location.
    public static let environmentVariable = "CAREBRIDGE_STORE"

    /// The store path for this user: `CAREBRIDGE_STORE`, else `$XDG_DATA_HOME/carebridge/store.sqlite`, else
    /// `~/.local/share/carebridge/store.sqlite`.
    /// - Parameter environment: the process environment (injected for tests).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit = environment[environmentVariable], !explicit.isEmpty { return explicit }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/carebridge/store.sqlite"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/carebridge/store.sqlite"
    }

    /// Creates the directory (0700, only the last component when it is missing) and the file (0600) if needed.
    ///
    /// An existing directory keeps its mode, so `--store /tmp/x.sqlite` does not chmod `/tmp`. The file is
    /// created exclusively with 0600 before SQLite opens it, so there is no moment with a wider mode; SQLite
    /// gives its `-wal` and `-shm` companions the mode of the main file.
    /// - Throws: ``CareStoreError`` with code `.storeLocation` naming the path and the system error.
    public static func prepare(path: String) throws(CareStoreError) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory,
                    withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700]
                )
            } catch {
                throw CareStoreError(
                    .storeLocation,
                    "cannot create directory \(directory): \(error.localizedDescription)"
                )
            }
        } else if !isDirectory.boolValue {
            throw CareStoreError(.storeLocation, "\(directory) is not a directory")
        }
        // The store and its companions must be regular files of ours, never symbolic links: a link (even a
        // dangling one, which SQLite would follow and create with the umask's 0644) or a file pre-created by
        // another user would let that user read or redirect the health data.
        for companion in ["-wal", "-shm", "-journal"] { try checkExisting(path + companion) }
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor >= 0 {
            // The umask may have narrowed it further; never wider than 0600.
            fchmod(descriptor, 0o600)
            close(descriptor)
        } else if errno == EEXIST {
            try checkExisting(path)
        } else {
            let reason = String(cString: strerror(errno))
            throw CareStoreError(.storeLocation, "cannot create store file \(path): \(reason)")
        }
    }

    /// Refuses `path` when it is a symbolic link, not a regular file, or owned by another user; narrows a file
    /// of ours that others could read to 0600. A missing file is fine.
    static func checkExisting(_ path: String) throws(CareStoreError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw CareStoreError(.storeLocation, "cannot inspect \(path): \(String(cString: strerror(errno)))")
        }
        let type = info.st_mode & S_IFMT
        if type == S_IFLNK {
            throw CareStoreError(
                .storeLocation,
                "\(path) is a symbolic link; refusing to follow it (it could send the health data elsewhere): "
                    + "give the real path"
            )
        }
        guard type == S_IFREG else {
            throw CareStoreError(.storeLocation, "\(path) is not a regular file")
        }
        guard info.st_uid == geteuid() else {
            throw CareStoreError(
                .storeLocation,
                "\(path) belongs to uid \(info.st_uid), not to this user (uid \(geteuid())); refusing to use a file "
                    + "someone else created, since they could read the health data: remove it or choose another path"
            )
        }
        if info.st_mode & 0o077 != 0 {
            // Ours but readable by others: the store promises 0600.
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            if descriptor >= 0 {
                fchmod(descriptor, 0o600)
                close(descriptor)
            }
        }
    }
}
