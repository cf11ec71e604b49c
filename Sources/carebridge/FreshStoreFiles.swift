import CareStore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The store file and directories a command is about to create, so that a `run` that fails before it stored a reading
/// removes them again instead of leaving an empty store (and directories) behind.
struct FreshStoreFiles {
    /// The store file when it does not exist yet; nil when it exists (an existing store is never removed).
    let file: String?
    /// The directories above it that do not exist yet, deepest first.
    let directories: [String]

    /// Notes what is missing now, before the store is opened.
    init(storePath: String) {
        let fileManager = FileManager.default
        file = fileManager.fileExists(atPath: storePath) ? nil : storePath
        var missing: [String] = []
        var directory = (storePath as NSString).deletingLastPathComponent
        while !directory.isEmpty, directory != "/", !fileManager.fileExists(atPath: directory) {
            missing.append(directory)
            directory = (directory as NSString).deletingLastPathComponent
        }
        directories = missing
    }

    /// Removes the store file (and its `-wal`, `-shm` and `-journal`) and the directories made for it, when the store
    /// is new and holds no reading; a directory that holds anything else stays.
    func removeIfNothingStored(in store: CareStore) async {
        guard let file, (try? await store.sampleCount()) == 0 else { return }
        try? store.finishPendingAccess()
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(file + suffix) }
        for directory in directories { rmdir(directory) }
    }
}
