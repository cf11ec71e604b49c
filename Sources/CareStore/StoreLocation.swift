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
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
            // The umask may have narrowed it further; never wider than 0600.
            chmod(path, 0o600)
        } else if errno != EEXIST {
            let reason = String(cString: strerror(errno))
            throw CareStoreError(.storeLocation, "cannot create store file \(path): \(reason)")
        }
    }
}
