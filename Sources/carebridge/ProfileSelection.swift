import ArgumentParser
import DeviceProfiles
import Foundation

/// The profiles a `profile` subcommand works on: the given files and directories (or the built-in ones), and the
/// whole catalogue they are checked against (built-in, user, given).
struct ProfileSelection {
    /// Every loaded profile (for claims and priority ties).
    var all: DeviceProfileLoader.Result
    /// The profiles selected, with their files.
    var selected: [(profile: DeviceProfile, file: String)]
    /// Load problems of the selected files.
    var problems: [DeviceProfileLoader.Problem]

    /// - Parameter paths: profile files or directories; none selects the built-in profiles (compiled in from
    ///   `Devices/`). Paths that hold no profile at all are refused.
    static func load(_ paths: [String]) throws -> ProfileSelection {
        let fileManager = FileManager.default
        var directories: [URL] = []
        var files: [URL] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ValidationError("\(path): no such file or directory")
            }
            let url = URL(fileURLWithPath: path)
            if isDirectory.boolValue { directories.append(url) } else { files.append(url) }
        }
        let given = DeviceProfileLoader.load(
            builtIn: paths.isEmpty,
            directories: [],
            required: directories,
            profileFiles: files
        )
        let all = DeviceProfileLoader.loadDefault(required: directories, profileFiles: files)
        if given.catalog.profiles.isEmpty && given.problems.isEmpty {
            throw ValidationError(
                "no device profile (*.json) in \(paths.joined(separator: ", ")): give profile files or a directory "
                    + "that holds them"
            )
        }
        let selected = given.catalog.profiles.compactMap { profile in
            given.files[profile.id].map { (profile: profile, file: $0) }
        }
        return ProfileSelection(all: all, selected: selected, problems: given.problems)
    }
}
