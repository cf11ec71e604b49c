import BridgeFoundation
import Foundation
import TestSupport
import Testing

@Suite("SafeOutputFile: output files that never destroy data")
struct SafeOutputFileTests {
    /// This test's directory, removed when the test ends.
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }

    init() throws {
        scratch = try ScratchDirectory("safe-output-")
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    func permissions(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test("a committed file has the content, mode 0600 whatever the umask, and no temporary file is left")
    func commitWritesPrivateFile() throws {
        let target = path("export.csv")
        let old = umask(0o022)
        defer { umask(old) }
        let output = try SafeOutputFile(path: target)
        try output.write("a,b\r\n")
        try output.write(Data("1,2\r\n".utf8))
        try output.commit()
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "a,b\r\n1,2\r\n")
        #expect(try permissions(target) == 0o600)
        #expect(try entries() == ["export.csv"])
    }

    @Test("an explicit mode is honoured")
    func explicitMode() throws {
        let target = path("shared.csv")
        let output = try SafeOutputFile(path: target, mode: 0o640)
        try output.write("x")
        try output.commit()
        #expect(try permissions(target) == 0o640)
    }

    @Test("until commit the existing file is untouched; discarding keeps it and removes the temporary file")
    func discardKeepsExisting() throws {
        let target = path("session.jsonl")
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: target))
        let output = try SafeOutputFile(path: target)
        try output.write("new content\n")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious\n")
        #expect(try entries().count == 2)
        #expect(output.writingPath.hasSuffix(".partial"))
        output.discard()
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious\n")
        #expect(try entries() == ["session.jsonl"])
    }

    @Test("an output released without commit (a thrown error) leaves the existing file as it was")
    func releasedWithoutCommit() throws {
        let target = path("report.txt")
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        do {
            let output = try SafeOutputFile(path: target)
            try output.write("half")
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "old")
        #expect(try entries() == ["report.txt"])
    }

    @Test("commit replaces an existing file")
    func commitReplaces() throws {
        let target = path("a.json")
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        let output = try SafeOutputFile(path: target)
        try output.write("new")
        try output.commit()
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "new")
    }

    @Test("an output that is one of the inputs is refused, also through another path or a symbolic link")
    func sameAsInputRefused() throws {
        let input = path("in.jsonl")
        try Data("line\n".utf8).write(to: URL(fileURLWithPath: input))
        try FileManager.default.createSymbolicLink(atPath: path("link.jsonl"), withDestinationPath: input)
        for out in [input, directory.path + "/./in.jsonl", path("link.jsonl")] {
            #expect(throws: OutputFileError.self) { try SafeOutputFile(path: out, inputs: [input]) }
            do {
                _ = try SafeOutputFile(path: out, inputs: [input])
            } catch {
                #expect(error.code == .sameAsInput)
                #expect(error.message.contains("input"))
            }
        }
        #expect(try String(contentsOfFile: input, encoding: .utf8) == "line\n")
    }

    @Test("a directory as output is refused with a plain message")
    func directoryRefused() throws {
        do {
            _ = try SafeOutputFile(path: directory.path)
            Issue.record("a directory was accepted as output")
        } catch {
            #expect(error.code == .isDirectory)
            #expect(error.description.contains("is a directory"))
        }
    }

    @Test("a missing directory is named in the error")
    func missingDirectory() throws {
        let target = path("nowhere/out.csv")
        do {
            _ = try SafeOutputFile(path: target)
            Issue.record("created a file in a missing directory")
        } catch {
            #expect(error.code == .cannotCreate)
            #expect(error.message.contains("does not exist"))
        }
    }

    @Test("a device such as /dev/null is written directly and stays a device")
    func deviceWrittenDirectly() throws {
        let output = try SafeOutputFile(path: "/dev/null")
        try output.write("discarded")
        try output.commit()
        var status = stat()
        #expect(stat("/dev/null", &status) == 0)
        #expect((status.st_mode & S_IFMT) == S_IFCHR)
    }

    @Test("a killed writer's .partial of the same output is removed by the next one; a live writer's is kept")
    func stalePartialsOfTheOutputAreRemoved() throws {
        let target = path("export.csv")
        // What `kill -9` during an export leaves: a partial file nobody holds.
        #expect(FileManager.default.createFile(atPath: path("export.csv.Ab12Cd.partial"), contents: Data("half".utf8)))
        // Another output's partial, and a file that only looks alike.
        #expect(FileManager.default.createFile(atPath: path("other.csv.Xy34Zw.partial"), contents: Data()))
        #expect(FileManager.default.createFile(atPath: path("export.csv.notes.partial"), contents: Data()))
        let live = try SafeOutputFile(path: target)
        let livePartial = (live.writingPath as NSString).lastPathComponent
        let output = try SafeOutputFile(path: target, removingStale: true)
        #expect(output.removedStale == [path("export.csv.Ab12Cd.partial")], "what was removed, for the command to say")
        try output.write("a\r\n")
        try output.commit()
        #expect(
            try entries()
                == ["export.csv", "export.csv.notes.partial", livePartial, "other.csv.Xy34Zw.partial"].sorted()
        )
        live.discard()
        // Without removingStale (recordings: what a killed recorder wrote is kept) nothing is removed.
        #expect(FileManager.default.createFile(atPath: path("export.csv.Ef56Gh.partial"), contents: Data()))
        try SafeOutputFile(path: target).commit()
        #expect(try entries().contains("export.csv.Ef56Gh.partial"))
    }
}
