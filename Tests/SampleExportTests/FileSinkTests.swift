import Foundation
import SampleExport
import Testing

@Suite struct FileSinkTests {
    @Test func writesBufferedTextToANewFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("carebridge-sink-\(UUID()).txt").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = try FileSink(path: path, capacity: 8)
        for index in 0..<100 { try sink.append("line \(index)\n") }
        try sink.close()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.split(separator: "\n").count == 100)
        #expect(text.hasPrefix("line 0\nline 1\n"))
        #expect(sink.byteCount == text.utf8.count)
    }

    @Test func leavesADeviceFileADevice() throws {
        // Opening /dev/null for an export must not replace it with a regular file.
        let sink = try FileSink(path: "/dev/null")
        try sink.append("discarded")
        try sink.close()
        let type = try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType
        #expect(type == .typeCharacterSpecial)
    }

    @Test func reportsAPathThatCannotBeOpened() {
        #expect(throws: ExportError.self) { try FileSink(path: "/nonexistent-dir-\(UUID())/out.json") }
    }
}
