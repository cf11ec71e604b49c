package import Foundation

/// Fresh directories that nothing removes, for a test that hands the path to code outliving any holder (a
/// ``ScratchDirectory`` removes its directory when the last reference goes).
package enum TemporaryDirectory {
    /// Creates `<temporary directory>/<prefix><UUID>`.
    /// - Throws: when the directory cannot be created.
    package static func make(_ prefix: String = "carebridge-") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
