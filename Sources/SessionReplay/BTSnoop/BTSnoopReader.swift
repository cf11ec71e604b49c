import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a btsnoop capture from a file one record at a time through a `FILE` buffer: memory stays bounded by the
/// largest record, however long the capture (``BTSnoopFile`` parses one held in memory, with the same rules and
/// messages).
///
/// A capture that is not a regular file (a pipe, `/dev/stdin`) is first copied to an unlinked temporary file, so
/// that ``timesNeverGoBack()`` can read it twice.
public final class BTSnoopReader {
    private let file: UnsafeMutablePointer<FILE>
    public let path: String
    public let datalink: BTSnoopFile.Datalink
    /// Set when ``next()`` stopped at a record cut short (a capture that was still being written): the records
    /// before it were returned.
    public private(set) var truncatedTail: BTSnoopError?
    /// Byte offset of the next record's header.
    private var offset = 16
    /// 0-based index of the next record.
    private var index = 0
    private var buffer: [UInt8] = []

    /// Opens a capture and reads its header.
    /// - Throws: ``BTSnoopError``: ``BTSnoopError/Code/unreadable`` when the file cannot be opened or read,
    ///   else what ``BTSnoopFile/init(bytes:)`` throws for a header it does not read.
    public init(path: String) throws(BTSnoopError) {
        self.path = path
        guard let opened = fopen(path, "rb") else { throw Self.unreadable(path, offset: 0) }
        var status = stat()
        guard fstat(fileno(opened), &status) == 0 else {
            fclose(opened)
            throw Self.unreadable(path, offset: 0)
        }
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            fclose(opened)
            throw BTSnoopError(code: .unreadable, message: "is a directory, not a capture", offset: 0)
        case S_IFREG:
            file = opened
        default:
            defer { fclose(opened) }
            file = try Self.copyToTemporaryFile(opened, path: path)
        }
        do throws(BTSnoopError) {
            var header = [UInt8](repeating: 0, count: 16)
            let count = fread(&header, 1, 16, file)
            guard ferror(file) == 0 else { throw Self.unreadable(path, offset: 0) }
            datalink = try BTSnoopFile.datalink(header: Array(header.prefix(count)))
        } catch {
            fclose(file)
            throw error
        }
    }

    deinit {
        fclose(file)
    }

    /// The next record, or nil at the end of the capture (``truncatedTail`` says whether it ended inside one).
    /// - Throws: ``BTSnoopError`` when the file cannot be read or a record's time is outside the supported years.
    public func next() throws(BTSnoopError) -> BTSnoopFile.Record? {
        guard truncatedTail == nil, let header = try nextHeader() else { return nil }
        // A header that claims more than the file holds is not read into memory first.
        let available = fileSize - (offset + 24)
        let data = header.included <= available ? try read(header.included) : []
        guard data.count == header.included else {
            truncatedTail = BTSnoopFile.cutInsideData(
                record: index,
                header: header,
                available: header.included <= available ? data.count : available,
                offset: offset
            )
            return nil
        }
        let record = BTSnoopFile.Record(
            index: index,
            offset: offset,
            time: try header.time(record: index, offset: offset),
            flags: header.flags,
            drops: header.drops,
            originalLength: header.original,
            data: data
        )
        offset += 24 + header.included
        index += 1
        return record
    }

    /// Reads every record's header (skipping the data) and checks its time, then starts again at the first record.
    /// - Returns: whether no record is earlier than the one before it (a capturing clock that was never set back).
    /// - Throws: ``BTSnoopError`` when the file cannot be read or a record's time is outside the supported years:
    ///   nothing is imported from such a capture.
    public func timesNeverGoBack() throws(BTSnoopError) -> Bool {
        var previous = -Double.infinity
        var ordered = true
        let size = fileSize
        while truncatedTail == nil, let header = try nextHeader() {
            guard header.included <= size - (offset + 24) else { break }
            let time = try header.time(record: index, offset: offset).timeIntervalSince1970
            if time < previous { ordered = false }
            previous = time
            offset += 24 + header.included
            index += 1
            guard fseeko(file, off_t(offset), SEEK_SET) == 0 else { throw Self.unreadable(path, offset: offset) }
        }
        offset = 16
        index = 0
        truncatedTail = nil
        guard fseeko(file, 16, SEEK_SET) == 0 else { throw Self.unreadable(path, offset: 16) }
        return ordered
    }

    /// The next record's 24-byte header, or nil at the end or when the file ends inside it.
    private func nextHeader() throws(BTSnoopError) -> BTSnoopFile.RecordHeader? {
        let head = try read(24)
        guard !head.isEmpty else { return nil }
        guard head.count == 24 else {
            truncatedTail = BTSnoopFile.cutInsideHeader(record: index, offset: offset)
            return nil
        }
        return BTSnoopFile.RecordHeader(head, at: 0)
    }

    /// Up to `count` bytes; fewer only at the end of the file. Reads in 64 KiB steps, so a record header that
    /// claims more than the file holds costs no more than the file.
    private func read(_ count: Int) throws(BTSnoopError) -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < count {
            let step = min(count - bytes.count, 1 << 16)
            if buffer.count < step { buffer = [UInt8](repeating: 0, count: step) }
            let got = fread(&buffer, 1, step, file)
            bytes += buffer[0..<got]
            guard got == step else {
                guard ferror(file) == 0 else { throw Self.unreadable(path, offset: offset) }
                break
            }
        }
        return bytes
    }

    /// The capture's size now (a capture still being written grows).
    private var fileSize: Int {
        var status = stat()
        return fstat(fileno(file), &status) == 0 ? Int(status.st_size) : Int.max
    }

    private static func unreadable(_ path: String, offset: Int) -> BTSnoopError {
        BTSnoopError(code: .unreadable, message: "cannot be read (\(String(cString: strerror(errno))))", offset: offset)
    }

    private static func uncopied() -> BTSnoopError {
        BTSnoopError(
            code: .unreadable,
            message:
                "is not a regular file, and its temporary copy cannot be written (\(String(cString: strerror(errno))))",
            offset: 0
        )
    }

    /// A pipe's contents in an unlinked temporary file, read from its start.
    private static func copyToTemporaryFile(
        _ source: UnsafeMutablePointer<FILE>,
        path: String
    ) throws(BTSnoopError) -> UnsafeMutablePointer<FILE> {
        guard let copy = tmpfile() else { throw uncopied() }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = fread(&chunk, 1, chunk.count, source)
            if got > 0, fwrite(chunk, 1, got, copy) != got {
                fclose(copy)
                throw uncopied()
            }
            if got < chunk.count {
                guard ferror(source) == 0 else {
                    fclose(copy)
                    throw unreadable(path, offset: 0)
                }
                break
            }
        }
        rewind(copy)
        return copy
    }
}
