public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An output file that never destroys data: what is written goes to a temporary file in the destination's
/// directory (created with mode 0600), and only ``commit()`` syncs it and renames it over the destination.
/// Until then — and when the command fails, throws or is killed — an existing file at the destination is left
/// exactly as it was. Every command that writes a file (exports, recordings, redacted recordings, reports) goes
/// through this type.
///
/// - The destination may not be one of the command's inputs (`inputs`), compared by device and inode, so
///   `--out` naming the input through another path or a link is refused too.
/// - A destination that exists and is not a regular file (`/dev/null`, `/dev/stdout`, a FIFO) is written
///   directly: it cannot be replaced by a rename, and there is nothing in it to lose.
/// - The file gets `mode` (default 0600: health data is private), whatever the umask; an existing file's mode
///   is not carried over.
/// - The temporary file is named `NAME.XXXXXX.partial` (visible, so that what a killed recorder wrote can
///   still be found); it is removed by ``discard()`` and when the object is released uncommitted. Its writer
///   holds an exclusive `flock` on it until then, which the system releases when the process dies: with
///   `removingStale`, opening the output first removes the `.partial` files of the same destination whose writer
///   is gone (an export killed with SIGKILL, which no handler sees), and leaves those still being written.
public final class SafeOutputFile {
    /// The destination path as given.
    public let path: String
    /// Where the bytes go until ``commit()``: the temporary file, or the destination itself when it is a device.
    public let writingPath: String
    /// The open descriptor of ``writingPath`` (for `fdopen` or `FileHandle`); closed by commit or discard.
    public let descriptor: Int32
    public let mode: mode_t
    /// The `.partial` files of a killed writer of this destination that opening it removed (with
    /// `removingStale`), for the command to say so.
    public private(set) var removedStale: [String] = []
    private let direct: Bool
    private var finished = false

    /// Opens the output.
    /// - Parameters:
    ///   - path: the destination.
    ///   - mode: permission bits of the finished file (default 0600).
    ///   - inputs: paths the command reads; the destination may not be any of them.
    ///   - removingStale: remove the `.partial` files a killed writer of this destination left (exports and
    ///     reports, whose half output is of no use; not recordings, whose is).
    /// - Throws: ``OutputFileError`` (`sameAsInput`, `isDirectory`, `cannotCreate`); nothing was touched.
    public init(
        path: String,
        mode: mode_t = 0o600,
        inputs: [String] = [],
        removingStale: Bool = false
    ) throws(OutputFileError) {
        self.path = path
        self.mode = mode
        var destination = stat()
        let exists = stat(path, &destination) == 0
        if exists {
            if (destination.st_mode & S_IFMT) == S_IFDIR {
                throw OutputFileError(code: .isDirectory, path: path, message: "is a directory; give a file name")
            }
            for input in inputs {
                var other = stat()
                if stat(input, &other) == 0, other.st_dev == destination.st_dev, other.st_ino == destination.st_ino {
                    throw OutputFileError(
                        code: .sameAsInput,
                        path: path,
                        message: "is also the input \(input); writing it would destroy it. Give another --out"
                    )
                }
            }
        }
        if exists && (destination.st_mode & S_IFMT) != S_IFREG {
            let descriptor = open(path, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw OutputFileError(code: .cannotCreate, path: path, message: "cannot open: \(Self.errorText())")
            }
            self.descriptor = descriptor
            self.writingPath = path
            self.direct = true
            self.removedStale = []
            return
        }
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let removed = removingStale ? Self.removeStalePartials(of: name, in: directory) : []
        var template = ((directory.isEmpty ? "" : directory + "/") + name + ".XXXXXX.partial").utf8CString
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 8) }
        guard descriptor >= 0 else {
            let reason = Self.errorText()
            let hint = errno == ENOENT ? " (the directory \(directory.isEmpty ? "." : directory) does not exist)" : ""
            throw OutputFileError(code: .cannotCreate, path: path, message: "cannot create: \(reason)\(hint)")
        }
        self.descriptor = descriptor
        self.writingPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        self.direct = false
        self.removedStale = removed
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        fchmod(descriptor, mode)
        // Held until the process ends: a later run tells this file from a dead writer's by it.
        _ = flock(descriptor, LOCK_EX | LOCK_NB)
    }

    /// Removes `NAME.XXXXXX.partial` files of `name` in `directory` whose writer is gone: nobody holds their lock.
    /// - Returns: the paths removed.
    static func removeStalePartials(of name: String, in directory: String) -> [String] {
        let folder = directory.isEmpty ? "." : directory
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var removed: [String] = []
        for entry in entries where entry.hasPrefix(name + ".") && entry.hasSuffix(".partial") {
            guard entry.utf8.count == name.utf8.count + ".XXXXXX.partial".utf8.count else { continue }
            let candidate = folder + "/" + entry
            let descriptor = open(candidate, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            var status = stat()
            if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_uid == getuid(),
                flock(descriptor, LOCK_EX | LOCK_NB) == 0, unlink(candidate) == 0
            {
                removed.append(candidate)
            }
            close(descriptor)
        }
        return removed.sorted()
    }

    deinit {
        if !finished { discard() }
    }

    /// Appends bytes.
    /// - Throws: ``OutputFileError`` (`cannotWrite`) with the system's reason (a full disk, for example).
    public func write(_ bytes: UnsafeRawBufferPointer) throws(OutputFileError) {
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw OutputFileError(code: .cannotWrite, path: path, message: "cannot write: \(Self.errorText())")
            }
            offset += written
        }
    }

    /// Appends the bytes of `data`.
    public func write(_ data: some DataProtocol) throws(OutputFileError) {
        for region in data.regions {
            let failure: OutputFileError? = region.withUnsafeBytes { buffer in
                do throws(OutputFileError) { try write(buffer) } catch { return error }
                return nil
            }
            if let failure { throw failure }
        }
    }

    /// Appends `text` as UTF-8.
    public func write(_ text: String) throws(OutputFileError) {
        var text = text
        let failure: OutputFileError? = text.withUTF8 { buffer in
            do throws(OutputFileError) { try write(UnsafeRawBufferPointer(buffer)) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Makes the output the destination: syncs the file to disk, renames it over the destination and syncs the
    /// directory. After a failure the destination is unchanged and the temporary file is removed.
    public func commit() throws(OutputFileError) {
        precondition(!finished, "SafeOutputFile committed or discarded twice")
        finished = true
        if direct {
            close(descriptor)
            return
        }
        guard fsync(descriptor) == 0 else {
            let reason = Self.errorText()
            close(descriptor)
            unlink(writingPath)
            throw OutputFileError(code: .cannotWrite, path: path, message: "cannot write to disk: \(reason)")
        }
        close(descriptor)
        guard rename(writingPath, path) == 0 else {
            let reason = Self.errorText()
            unlink(writingPath)
            throw OutputFileError(code: .cannotWrite, path: path, message: "cannot replace: \(reason)")
        }
        let directory = (path as NSString).deletingLastPathComponent
        let directoryDescriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// Abandons the output: the temporary file is removed and the destination stays as it was.
    public func discard() {
        guard !finished else { return }
        finished = true
        close(descriptor)
        if !direct { unlink(writingPath) }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}

/// `write(2)`, out of the class whose `write` methods would shadow it.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
