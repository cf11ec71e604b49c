import BridgeCore
import Foundation
import SessionReplay
import TestSupport
import Testing

/// ``BTSnoopReader`` reads a capture file a record at a time with the same rules as ``BTSnoopFile`` reads one held
/// in memory: the same records, the same cut tail, the same errors.
@Suite struct BTSnoopReaderTests {
    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("btsnoop-reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The records (and the cut tail) of a capture file, or the error reading it.
    func readAll(_ path: String) -> Result<([BTSnoopFile.Record], BTSnoopError?, Bool), BTSnoopError> {
        do throws(BTSnoopError) {
            let reader = try BTSnoopReader(path: path)
            let ordered = try reader.timesNeverGoBack()
            var records: [BTSnoopFile.Record] = []
            while let record = try reader.next() { records.append(record) }
            return .success((records, reader.truncatedTail, ordered))
        } catch {
            return .failure(error)
        }
    }

    @Test func everyPrefixOfACaptureReadsAsTheInMemoryParserReadsIt() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let full = BTSnoopWeighInCapture(format: .monitor(controller: 0)).bytes
        let path = dir.appendingPathComponent("prefix.btsnoop").path
        for length in 0...full.count {
            try Data(full.prefix(length)).write(to: URL(fileURLWithPath: path))
            switch (
                Result { () throws(BTSnoopError) in try BTSnoopFile(bytes: Array(full.prefix(length))) }, readAll(path)
            ) {
            case (.success(let file), .success(let (records, tail, ordered))):
                #expect(records == file.records, "prefix \(length)")
                #expect(tail == file.truncatedTail, "prefix \(length)")
                #expect(ordered)
            case (.failure(let expected), .failure(let error)):
                #expect(error == expected, "prefix \(length)")
            case (let expected, let read):
                Issue.record("prefix \(length): in memory \(expected), from the file \(read)")
            }
        }
    }

    @Test func aTimeOutOfRangeIsFoundBeforeTheFirstRecordIsHandedBack() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var capture = BTSnoopCaptureBuilder(format: .h4, start: BTSnoopWeighInCapture.start)
        capture.record([0x04, 0x0E, 0x00], flags: 3, after: 0.25)
        capture.record([0x04, 0x0E, 0x00], flags: 3, after: 400_000_000_000)
        let path = dir.appendingPathComponent("unset-clock.btsnoop").path
        try Data(capture.bytes).write(to: URL(fileURLWithPath: path))
        let reader = try BTSnoopReader(path: path)
        #expect(throws: BTSnoopError.self) { try reader.timesNeverGoBack() }
    }

    @Test func aClockThatStepsBackIsReported() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var capture = BTSnoopCaptureBuilder(format: .h4, start: BTSnoopWeighInCapture.start)
        capture.record([0x04, 0x0E, 0x00], flags: 3, after: 1)
        capture.record([0x04, 0x0E, 0x00], flags: 3, after: -0.5)
        capture.record([0x04, 0x0E, 0x00], flags: 3, after: 1)
        let path = dir.appendingPathComponent("steps-back.btsnoop").path
        try Data(capture.bytes).write(to: URL(fileURLWithPath: path))
        let (records, tail, ordered) = try readAll(path).get()
        #expect(records.count == 3 && tail == nil)
        #expect(!ordered)
    }

    @Test func aCaptureFromAPipeIsReadLikeAFile() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bytes = BTSnoopWeighInCapture(format: .h4).bytes
        let fifo = dir.appendingPathComponent("capture.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread {
            if let handle = FileHandle(forWritingAtPath: fifo) {
                handle.write(Data(bytes))
                try? handle.close()
            }
        }
        writer.start()
        let (records, tail, _) = try readAll(fifo).get()
        #expect(records == (try BTSnoopFile(bytes: bytes)).records)
        #expect(tail == nil)
    }
}
