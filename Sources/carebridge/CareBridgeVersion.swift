import Foundation

/// What `carebridge --version` prints: the release, and the commit when the binary runs from a git checkout.
///
/// The release is a constant the release commit raises (`0.9.0` when tagged, the next `-dev` version after it).
/// A binary that runs from a checkout's build directory (`CHECKOUT/.build/…/carebridge`, as `swift build` leaves
/// it) adds the checkout's commit, read from its `.git` without running git: `0.9.0-dev (git 1a2b3c4d5e6f)`. That is
/// the commit the checkout is at when the command runs (the built one unless the checkout moved since the build;
/// uncommitted changes are not looked at). An installed binary prints the release alone.
enum CareBridgeVersion {
    /// Raised by the release that tags it; between releases the development line's next version.
    static let current = "0.9.0-dev"

    /// `current`, with the checkout's commit when there is one.
    static var full: String {
        guard let commit = checkoutCommit(executable: CommandLine.arguments.first.map(executablePath) ?? nil) else {
            return current
        }
        return "\(current) (git \(commit.prefix(12)))"
    }

    /// The running executable's path (`/proc/self/exe`, else argv[0] as given).
    static func executablePath(_ argument0: String) -> String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? argument0
    }

    /// The commit of the checkout whose `.build` directory holds `executable`, or nil.
    static func checkoutCommit(executable: String?) -> String? {
        guard let executable else { return nil }
        let components = URL(fileURLWithPath: executable).standardizedFileURL.pathComponents
        guard let build = components.lastIndex(of: ".build"), build > 0 else { return nil }
        let root = NSString.path(withComponents: Array(components[..<build]))
        return commit(gitDirectory: gitDirectory(of: root))
    }

    /// `ROOT/.git`, or the directory a `.git` file points to (`gitdir: …`, worktrees).
    static func gitDirectory(of root: String) -> String? {
        let dotGit = (root as NSString).appendingPathComponent(".git")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dotGit, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue { return dotGit }
        guard let text = try? String(contentsOfFile: dotGit, encoding: .utf8), text.hasPrefix("gitdir:") else {
            return nil
        }
        let path = text.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespacesAndNewlines)
        return path.hasPrefix("/") ? path : (root as NSString).appendingPathComponent(path)
    }

    /// HEAD's commit: a detached hash, or the branch's ref (loose, else in `packed-refs`).
    static func commit(gitDirectory: String?) -> String? {
        guard let gitDirectory,
            let head = try? String(contentsOfFile: gitDirectory + "/HEAD", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        else { return nil }
        guard head.hasPrefix("ref: ") else { return isHash(head) ? head : nil }
        let ref = String(head.dropFirst(5))
        // A linked worktree keeps its HEAD but shares the refs of the main repository (`commondir`).
        var directories = [gitDirectory]
        if let common = try? String(contentsOfFile: gitDirectory + "/commondir", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        {
            directories.append(common.hasPrefix("/") ? common : gitDirectory + "/" + common)
        }
        for directory in directories {
            if let loose = try? String(contentsOfFile: directory + "/" + ref, encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines), isHash(loose)
            {
                return loose
            }
            if let packed = try? String(contentsOfFile: directory + "/packed-refs", encoding: .utf8) {
                for line in packed.split(separator: "\n") where line.hasSuffix(" " + ref) {
                    let hash = String(line.prefix { $0 != " " })
                    if isHash(hash) { return hash }
                }
            }
        }
        return nil
    }

    static func isHash(_ text: String) -> Bool {
        (40...64).contains(text.count) && text.allSatisfy(\.isHexDigit)
    }
}
