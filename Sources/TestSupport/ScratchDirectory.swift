package import Foundation

/// A fresh, uniquely named directory under `FileManager.default.temporaryDirectory`, created on init and removed
/// with everything in it when the last reference goes.
///
/// Swift Testing makes a new suite instance for each test and releases it when the test ends, so a suite that
/// keeps one in a stored property gets an empty directory per test that is gone afterwards. A test that needs the
/// directory past some point (a child process writing into it, a second open of a store) keeps the holder alive
/// until then, for example with `withExtendedLifetime`.
package final class ScratchDirectory: Sendable {
    /// The directory.
    package let url: URL

    /// Creates `<temporary directory>/<prefix><UUID>`.
    /// - Throws: when the directory cannot be created.
    package init(_ prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The directory's path.
    package var path: String { url.path }

    /// A file (or directory) named `name` inside the directory; nothing is created.
    package func url(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// The path of `name` inside the directory; nothing is created.
    package func path(_ name: String) -> String { url(name).path }

    /// Writes `text` into `name` inside the directory with mode 0600, as a secret's file should be.
    /// - Returns: the file's path.
    @discardableResult
    package func writeSecret(_ name: String, _ text: String) throws -> String {
        try Self.writeSecret(text, to: path(name))
        return path(name)
    }

    /// Writes `text` into the file at `path` with mode 0600 (a password, token or API secret for a command).
    package static func writeSecret(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }
}
