import Foundation
import TestSupport
import Testing

/// `.ci/build-deb` makes a package that installs: the binary, the unit, the profiles, the man page and the user, and
/// removing it keeps the store. The release build takes 10–20 minutes, so the test packages the debug binary this
/// test run already has (`--binary`; it still needs the toolchain's Swift runtime, which this machine has) and
/// installs it with `dpkg --root` into a temporary directory, maintainer scripts included (`DPKG_ROOT`).
@Suite struct DebianPackageTests {
    static let tools = ["/usr/bin/dpkg-deb", "/usr/bin/dpkg-shlibdeps", "/usr/bin/systemd-sysusers", "/usr/bin/dpkg"]
    /// Under `CI=true` a missing tool fails the test instead of skipping it.
    static var toolsPresent: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true"
            || tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    func run(_ tool: String, _ arguments: [String]) async throws -> ChildProcess.Output {
        try await ChildProcess.run(URL(fileURLWithPath: tool), arguments)
    }

    @Test(.enabled(if: toolsPresent, "needs dpkg-dev and systemd-sysusers (apt-get install dpkg-dev)"))
    func thePackageInstallsTheBinaryUnitProfilesManPageAndUserAndKeepsTheStoreWhenPurged() async throws {
        let scratch = try ScratchDirectory("carebridge-deb-")
        let build = try await run(
            "/bin/bash",
            [
                PackageRoot.url.appendingPathComponent(".ci/build-deb").path,
                "--binary", PackageRoot.carebridgeExecutable.path, "--version", "0.9.0~test",
                "--out", scratch.path("out"), "--compress", "none",
            ]
        )
        #expect(build.status == 0, "\(build.standardError)")
        let deb = try #require(build.standardOutput.split(separator: "\n").last.map(String.init))
        #expect(deb.hasSuffix(".deb"), "\(build.standardOutput)")

        let info = try await run("/usr/bin/dpkg-deb", ["--info", deb])
        #expect(info.standardOutput.contains("Package: carebridge"), "\(info.standardOutput)")
        #expect(info.standardOutput.contains("Version: 0.9.0~test"))
        for library in ["libsqlite3-0", "libsystemd0", "libudev1", "libbluetooth3", "systemd"] {
            #expect(info.standardOutput.contains(library), "Depends names \(library): \(info.standardOutput)")
        }
        for script in ["postinst", "prerm", "postrm"] { #expect(info.standardOutput.contains(script)) }
        let contents = try await run("/usr/bin/dpkg-deb", ["--contents", deb]).standardOutput
        for path in [
            "./usr/bin/carebridge", "./lib/systemd/system/carebridge.service", "./usr/lib/sysusers.d/carebridge.conf",
            "./usr/share/carebridge/devices/weight-scale.json", "./usr/share/man/man1/carebridge.1.gz",
            "./usr/share/doc/carebridge/README.md",
        ] {
            #expect(contents.contains(path), "\(path) in \(contents.prefix(2000))")
        }

        // An empty root with a dpkg database; the libraries it depends on are this machine's.
        let root = scratch.path("root")
        for directory in ["var/lib/dpkg/updates", "var/lib/dpkg/info", "etc"] {
            try FileManager.default.createDirectory(
                atPath: root + "/" + directory,
                withIntermediateDirectories: true
            )
        }
        try Data().write(to: URL(fileURLWithPath: root + "/var/lib/dpkg/status"))
        let dpkg = [
            "--root=\(root)", "--force-script-chrootless", "--force-depends", "--force-not-root", "--log=/dev/null",
        ]
        let install = try await run("/usr/bin/dpkg", dpkg + ["--install", deb])
        #expect(install.status == 0, "\(install.standardOutput)\n\(install.standardError)")

        let installed = URL(fileURLWithPath: root + "/usr/bin/carebridge")
        let version = try await CarebridgeProcess.run(["--version"], executable: installed)
        #expect(version.status == 0 && version.stdout.hasPrefix("0.9.0"), "\(version.stdout)\(version.stderr)")
        let help = try await CarebridgeProcess.run(["--help"], executable: installed)
        #expect(help.status == 0 && help.stdout.contains("USAGE: carebridge <subcommand>"), "\(help.stdout)")

        let unit = try String(contentsOfFile: root + "/lib/systemd/system/carebridge.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/bin/carebridge run --store /var/lib/carebridge/store.sqlite"), "\(unit)")
        #expect(unit.contains("User=carebridge") && unit.contains("file:/usr/share/doc/carebridge/README.md"))
        let passwd = try String(contentsOfFile: root + "/etc/passwd", encoding: .utf8)
        #expect(passwd.contains("carebridge:x:"), "the postinst created the user: \(passwd)")
        let group = try String(contentsOfFile: root + "/etc/group", encoding: .utf8)
        #expect(group.split(separator: "\n").contains { $0.hasPrefix("bluetooth:") && $0.hasSuffix(":carebridge") })
        let state = try FileManager.default.attributesOfItem(atPath: root + "/var/lib/carebridge")
        #expect((state[.posixPermissions] as? Int) == 0o700)
        let manual = try await run("/bin/sh", ["-c", "gzip -dc '\(root)/usr/share/man/man1/carebridge.1.gz'"])
        #expect(manual.standardOutput.hasPrefix(".TH CAREBRIDGE 1"))
        #expect(manual.standardOutput.contains(#".SS "carebridge plan apply""#), "every command's --help")

        // Removing and purging the package stops at the data: the store stays.
        let store = root + "/var/lib/carebridge/store.sqlite"
        try Data("health data".utf8).write(to: URL(fileURLWithPath: store))
        let purge = try await run("/usr/bin/dpkg", dpkg + ["--purge", "carebridge"])
        #expect(purge.status == 0, "\(purge.standardOutput)\n\(purge.standardError)")
        #expect(!FileManager.default.fileExists(atPath: installed.path))
        #expect(FileManager.default.contents(atPath: store) == Data("health data".utf8))
    }
}
