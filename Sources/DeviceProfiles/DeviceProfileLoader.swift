public import Foundation

/// Finds and reads `Devices/*.json` profile directories.
///
/// A broken profile is reported with its path and the problem; the other profiles still load.
public enum DeviceProfileLoader {
    /// A profile file that could not be used.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var path: String
        public var message: String

        public init(path: String, message: String) {
            self.path = path
            self.message = message
        }

        public var description: String { "\(path): \(message)" }
    }

    /// The catalogue built from every readable profile, and what went wrong with the others.
    public struct Result: Sendable {
        public var catalog: DeviceCatalog
        public var problems: [Problem]
        /// Files the profiles came from, by profile id (the last file wins for a repeated id).
        public var files: [String: String]
    }

    /// The directories searched by default, in order: the built-in profiles, then the user's.
    /// - Parameters:
    ///   - executable: path of the running executable (`CommandLine.arguments[0]`).
    ///   - environment: for `XDG_CONFIG_HOME` and `HOME`.
    public static func defaultDirectories(
        executable: String = CommandLine.arguments[0],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [URL] {
        var directories: [URL] = []
        if let builtIn = builtInDirectory(executable: executable) { directories.append(builtIn) }
        if let user = userDirectory(environment: environment) { directories.append(user) }
        return directories
    }

    /// The built-in `Devices/` directory: next to or above the executable (`.build/<config>/carebridge` in a
    /// checkout, `<prefix>/share/carebridge/Devices` when installed), else the package this was built from.
    public static func builtInDirectory(executable: String = CommandLine.arguments[0]) -> URL? {
        let fileManager = FileManager.default
        func isDirectory(_ url: URL) -> Bool {
            var isDirectory: ObjCBool = false
            return fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
        var url = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        while url.path != "/" && !url.path.isEmpty {
            for candidate in [
                url.appendingPathComponent("Devices"), url.appendingPathComponent("share/carebridge/Devices"),
            ]
            where isDirectory(candidate) {
                return candidate
            }
            url.deleteLastPathComponent()
        }
        // The package checkout this module was compiled from.
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Devices")
        return isDirectory(package) ? package : nil
    }

    /// `$XDG_CONFIG_HOME/carebridge/devices`, falling back to `~/.config/carebridge/devices`.
    public static func userDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty {
            return URL(fileURLWithPath: config).appendingPathComponent("carebridge/devices")
        }
        if let home = environment["HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home).appendingPathComponent(".config/carebridge/devices")
        }
        return nil
    }

    /// Loads every `*.json` file of each directory (files sorted by name; directories in the given order, so
    /// a user profile with a built-in profile's id replaces it).
    /// - Parameters:
    ///   - directories: directories to read; a missing one is skipped unless it is in `required`.
    ///   - required: directories the user named explicitly (`--devices DIR`); missing ones are problems.
    ///   - profileFiles: single profile files read after the directories (`carebridge profile test FILE`).
    public static func load(directories: [URL], required: [URL] = [], profileFiles: [URL] = []) -> Result {
        var profiles: [DeviceProfile] = []
        var problems: [Problem] = []
        var files: [String: String] = [:]
        let fileManager = FileManager.default
        var paths: [String] = []
        for directory in directories + required {
            let names: [String]
            do {
                names = try fileManager.contentsOfDirectory(atPath: directory.path)
            } catch {
                if required.contains(directory) {
                    problems.append(Problem(path: directory.path, message: "cannot read the directory"))
                }
                continue
            }
            paths += names.sorted().filter { $0.hasSuffix(".json") }.map { directory.appendingPathComponent($0).path }
        }
        paths += profileFiles.map(\.path)
        for path in paths {
            guard let data = fileManager.contents(atPath: path) else {
                problems.append(Problem(path: path, message: "cannot read the file"))
                continue
            }
            do {
                let profile = try DeviceProfile(json: String(decoding: data, as: UTF8.self))
                profiles.append(profile)
                files[profile.id] = path
            } catch {
                problems.append(Problem(path: path, message: error.description))
            }
        }
        return Result(catalog: DeviceCatalog(profiles: profiles), problems: problems, files: files)
    }
}
