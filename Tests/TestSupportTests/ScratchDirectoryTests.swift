import Foundation
import TestSupport
import Testing

/// A scratch directory exists while it is held and is removed, contents and all, when it is released.
struct ScratchDirectoryTests {
    @Test func theDirectoryExistsWhileHeldAndIsGoneWithItsContentsAfterRelease() throws {
        var scratch: ScratchDirectory? = try ScratchDirectory("scratch-test-")
        let directory = try #require(scratch).url
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
        #expect(directory.lastPathComponent.hasPrefix("scratch-test-"))
        let parent = directory.deletingLastPathComponent().standardizedFileURL.path
        #expect(parent == FileManager.default.temporaryDirectory.standardizedFileURL.path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)

        // Contents, including a nested directory, go with it.
        let file = try #require(scratch).url("a.txt")
        #expect(file.deletingLastPathComponent().path == directory.path)
        #expect(try #require(scratch).path("a.txt") == file.path)
        try Data("a".utf8).write(to: file)
        let nested = directory.appendingPathComponent("nested/deeper")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        try Data("b".utf8).write(to: nested.appendingPathComponent("b.txt"))

        scratch = nil
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test func twoInstancesNeverShareADirectory() throws {
        let first = try ScratchDirectory("scratch-test-")
        let second = try ScratchDirectory("scratch-test-")
        #expect(first.url.path != second.url.path)
        #expect(FileManager.default.fileExists(atPath: first.path))
        #expect(FileManager.default.fileExists(atPath: second.path))
    }
}
