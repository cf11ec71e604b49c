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

    /// The directories searched by default after the built-in profiles: the user's.
    /// - Parameter environment: for `XDG_CONFIG_HOME` and `HOME`.
    public static func defaultDirectories(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [URL] {
        userDirectory(environment: environment).map { [$0] } ?? []
    }

    /// The built-in profiles (``BuiltInProfiles``), then the user's directory, then `required` and
    /// `profileFiles`: what `run`, `replay` and the `profile` commands load.
    public static func loadDefault(
        required: [URL] = [],
        profileFiles: [URL] = [],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Result {
        load(
            builtIn: true,
            directories: defaultDirectories(environment: environment),
            required: required,
            profileFiles: profileFiles
        )
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

    /// Loads the built-in profiles if asked, then every `*.json` file of each directory (files sorted by name;
    /// directories in the given order, so a user profile with a built-in profile's id replaces it).
    /// - Parameters:
    ///   - builtIn: start with the profiles compiled into the binary (``BuiltInProfiles``).
    ///   - directories: directories to read; a missing one is skipped unless it is in `required`.
    ///   - required: directories the user named explicitly (`--devices DIR`); missing ones are problems.
    ///   - profileFiles: single profile files read after the directories (`carebridge profile test FILE`).
    public static func load(
        builtIn: Bool = false,
        directories: [URL],
        required: [URL] = [],
        profileFiles: [URL] = []
    ) -> Result {
        var profiles: [DeviceProfile] = []
        var problems: [Problem] = []
        var files: [String: String] = [:]
        func read(_ text: String, origin: String) {
            do {
                let profile = try DeviceProfile(json: text)
                profiles.append(profile)
                files[profile.id] = origin
            } catch {
                problems.append(Problem(path: origin, message: error.description))
            }
        }
        if builtIn {
            for file in BuiltInProfiles.files { read(file.json, origin: BuiltInProfiles.origin(of: file.name)) }
        }
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
            read(String(decoding: data, as: UTF8.self), origin: path)
        }
        return Result(catalog: DeviceCatalog(profiles: profiles), problems: problems, files: files)
    }
}
