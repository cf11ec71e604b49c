import Foundation
import TestSupport
import Testing

/// The real-bluetoothd tier: one QEMU guest boot with Debian's kernel, two-plus emulated LE controllers (btvirt),
/// the real bluetoothd 5.66 and simulated devices (Simulators/), running every scenario of
/// `Harness/guest/scenarios.sh` in sequence with the built `carebridge` on hci0. The tests check each scenario's
/// results, copied to a share on the host.
///
/// Needs qemu-system-x86, bluez, bluez-test-tools, busybox-static, kmod, cpio, python3-dbus, python3-gi and
/// python3-cryptography (the Eufy scale's AES)
/// (`.ci/run` installs them) and the kernel cache `Harness/setup.sh` prepares. Without them the tests are skipped
/// locally; with `CI=true` they fail instead.
enum RealBlueZ {
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("package root not found above \(#filePath)")
    }()
    static let harness = packageRoot.appendingPathComponent("Tests/RealBlueZTests/Harness")

    /// The scenarios of one boot, in the order they run: all of them, or for a quick run by hand the ones named in
    /// `CAREBRIDGE_REAL_BLUEZ_SCENARIOS` (with `--filter` to the tests that read them).
    static let scenarios: [String] = {
        let all = [
            "heart-rate", "weight-scale", "passkey", "thermometer", "blood-pressure", "pulse-oximeter", "mi-scale",
            "glucose-meter", "ghs-oximeter", "uds-scale", "omron-cuff", "omron-memory-cuff", "omron-classic-cuff",
            "omron-hbf-scale", "eufy-scale", "eufy-refused", "o2ring",
            "bluetoothd-restart", "record-replay", "scan", "latency",
        ]
        guard let named = ProcessInfo.processInfo.environment["CAREBRIDGE_REAL_BLUEZ_SCENARIOS"] else { return all }
        return named.split(separator: " ").map(String.init).filter(all.contains)
    }()

    static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// Tools the tier needs that are not installed (empty when everything is there).
    static let missingTools: [String] = {
        let tools: [(String, [String])] = [
            ("qemu-system-x86_64 (qemu-system-x86)", ["/usr/bin/qemu-system-x86_64"]),
            ("bluetoothd (bluez)", ["/usr/libexec/bluetooth/bluetoothd"]),
            ("btvirt (bluez-test-tools)", ["/usr/bin/btvirt"]),
            ("btmgmt (bluez)", ["/usr/bin/btmgmt"]),
            ("busybox (busybox-static)", ["/bin/busybox", "/usr/bin/busybox"]),
            ("depmod (kmod)", ["/sbin/depmod", "/usr/sbin/depmod", "/usr/bin/depmod"]),
            ("cpio", ["/bin/cpio", "/usr/bin/cpio"]),
            ("dbus-daemon (dbus)", ["/usr/bin/dbus-daemon"]),
            ("python3", ["/usr/bin/python3"]),
        ]
        var missing = tools.filter { _, paths in
            !paths.contains { FileManager.default.isExecutableFile(atPath: $0) }
        }.map(\.0)
        if missing.isEmpty, !python(canImport: "dbus, gi, cryptography") {
            missing.append("python3-dbus, python3-gi and python3-cryptography")
        }
        return missing
    }()

    /// Runs when the tools are there, and always in CI (where a missing tool must fail, never skip).
    static let enabled = missingTools.isEmpty || inCI

    static func python(canImport modules: String) -> Bool {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        probe.arguments = ["-c", "import \(modules)"]
        probe.standardError = FileHandle.nullDevice
        probe.standardOutput = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }

    /// The `carebridge` the guest runs: `CAREBRIDGE_REAL_BLUEZ_CAREBRIDGE` when set (`.ci/run` names its release
    /// build, as the README installs it; `carebridge-bench` is looked for beside it), else the one built next to the
    /// test bundle, else `.build/debug`'s.
    static var carebridge: URL {
        if let path = ProcessInfo.processInfo.environment["CAREBRIDGE_REAL_BLUEZ_CAREBRIDGE"], !path.isEmpty {
            return URL(fileURLWithPath: path).absoluteURL
        }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            let candidate = url.appendingPathComponent("carebridge")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return packageRoot.appendingPathComponent(".build/debug/carebridge")
    }

    /// The one boot every test of the tier awaits.
    static let run = Task { try await GuestRun.boot(scenarios: scenarios) }

    /// The results of one scenario (after the boot).
    static func scenario(_ name: String) async throws -> ScenarioResult {
        let run = try await run.value
        return try ScenarioResult(name: name, directory: run.directory.appendingPathComponent(name), run: run)
    }
}

struct SetupError: Error, CustomStringConvertible {
    var description: String
}

/// One guest boot: the console, the exit status, the results share and how long it took.
struct GuestRun: Sendable {
    var directory: URL
    var status: Int32
    var console: String
    var seconds: Double

    /// Seconds each scenario's waits may take (`CAREBRIDGE_SCENARIO_BUDGET` in the guest): a scenario takes
    /// 10-40 s under TCG on a 2-core machine, and up to 150 s with four builds beside it (load 13).
    static let scenarioBudget = 300
    /// Seconds a scenario may take past its waits' budget: stopping the bridge (60 s at most), exporting the store,
    /// removing the devices.
    static let scenarioSlack = 60
    /// Scenarios with a budget of ``longScenarioBudget`` (`CAREBRIDGE_LONG_SCENARIOS` in the guest): the HBF-702T
    /// scale is read whole on each of two visits, 240 record parts of at most 32 bytes each time (314 s from the
    /// bridge's start to the end of the second visit on a 2-core machine with one test run beside it).
    static let longScenarios: Set<String> = ["omron-hbf-scale"]
    /// Seconds a long scenario's waits may take: three times ``scenarioBudget``, for a host as loaded as the one
    /// that budget allows for.
    static let longScenarioBudget = 3 * scenarioBudget
    /// Seconds for booting the guest and bringing the stack up (about 10 s under TCG).
    static let bootBudget = 120
    /// Fresh boots after a guest kernel oops: Debian's 6.1 kernel faulted (a general protection fault on a freed
    /// list entry, in hci_chan_del under l2cap_sock_release) on the glucose meter's and the multi-user scale's
    /// reconnects in four boots out of five of one CI run, so the guest now runs Debian 12's 6.12 kernel
    /// (Harness/setup.sh); a fresh boot stays the answer to an oops, and each runs only what is left.
    static let freshBoots = 3

    /// The guest's budget (`CAREBRIDGE_VM_TIMEOUT`): the boot's, then each scenario's (a long one's
    /// ``longScenarioBudget``), and the longest one's again for the one run again after bluetoothd crashed under it
    /// (`Harness/guest/scenarios.sh`). A fresh boot after a kernel oops has a budget of its own, for the scenarios it
    /// runs.
    static func budget(scenarios: [String]) -> Int {
        let budgets = scenarios.map { longScenarios.contains($0) ? longScenarioBudget : scenarioBudget }
        let retry = budgets.max() ?? scenarioBudget
        return bootBudget + budgets.reduce(0, +) + retry + scenarioSlack * (scenarios.count + 1)
    }

    /// Checks the tools and runs `Harness/setup.sh` (the kernel cache; instant once it is ready).
    static func prepare() async throws {
        guard RealBlueZ.missingTools.isEmpty else {
            throw SetupError(
                description: "the real-bluetoothd tier needs \(RealBlueZ.missingTools.joined(separator: ", ")): "
                    + "apt-get install qemu-system-x86 bluez bluez-test-tools busybox-static kmod cpio dbus "
                    + "python3-dbus python3-gi python3-cryptography (see docs/development.md, Tests without a radio)"
            )
        }
        let setup = try await run(RealBlueZ.harness.appendingPathComponent("setup.sh").path, [], timeout: 600)
        guard setup.status == 0 else {
            throw SetupError(description: "Tests/RealBlueZTests/Harness/setup.sh failed:\n\(setup.output)")
        }
    }

    /// A fresh results share for one boot.
    static func resultsDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "carebridge-real-bluez-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func boot(scenarios: [String]) async throws -> GuestRun {
        try await prepare()
        guard FileManager.default.isExecutableFile(atPath: RealBlueZ.carebridge.path) else {
            throw SetupError(description: "no carebridge to run in the guest at \(RealBlueZ.carebridge.path)")
        }
        let directory = try resultsDirectory()
        var run = try await bootOnce(scenarios: scenarios, into: directory, retryingAPanic: true)
        // A kernel oops during a scenario leaves that boot's Bluetooth stack broken: the guest stops and names the
        // scenarios still to run (the failed one again) in reboot.txt. They run in a fresh boot into the same
        // results share, at most ``freshBoots`` times; each boot's console is kept after the one before.
        let reboot = directory.appendingPathComponent("reboot.txt")
        for _ in 0..<Self.freshBoots {
            guard let rest = try? String(contentsOf: reboot, encoding: .utf8) else { break }
            try FileManager.default.removeItem(at: reboot)
            let remaining = rest.split(whereSeparator: \.isWhitespace).map(String.init)
            print("real-bluez: the guest kernel oopsed; booting a fresh guest for \(remaining.joined(separator: " "))")
            let next = try await bootOnce(scenarios: remaining, into: directory, retryingAPanic: false)
            run = GuestRun(
                directory: directory,
                status: next.status,
                console: run.console + "\n--- fresh boot after a kernel oops ---\n" + next.console,
                seconds: run.seconds + next.seconds
            )
        }
        try await exportStores(in: directory)
        return run
    }

    /// Each scenario's kept store (`PREFIXstore.sqlite`, Harness/guest/scenarios.sh) exported on the host with the
    /// same `carebridge` the guest ran: `samples --json` into `PREFIXsamples.json` and the plan's events of yesterday,
    /// today and tomorrow (a run can cross midnight, UTC) into `PREFIXevents.json`, their errors into `export.log`.
    static func exportStores(in directory: URL) async throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let day = { (offset: Int) -> String in
            let date = calendar.date(byAdding: .day, value: offset, to: Date())!
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        }
        let manager = FileManager.default
        for scenario in try manager.contentsOfDirectory(atPath: directory.path).sorted() {
            let folder = directory.appendingPathComponent(scenario)
            let files = (try? manager.contentsOfDirectory(atPath: folder.path)) ?? []
            for file in files.sorted() where file.hasSuffix("store.sqlite") {
                let prefix = String(file.dropLast("store.sqlite".count))
                let store = folder.appendingPathComponent(file).path
                try await export(
                    ["samples", "--store", store, "--json", "--from", "2000-01-01", "--to", "2100-01-01"],
                    into: folder.appendingPathComponent(prefix + "samples.json"),
                    errors: folder.appendingPathComponent("export.log")
                )
                try await export(
                    [
                        "events", "--store", store, "--json", "--time-zone", "UTC", "--from", day(-1), "--to", day(1),
                    ],
                    into: folder.appendingPathComponent(prefix + "events.json"),
                    errors: folder.appendingPathComponent("export.log")
                )
            }
        }
    }

    /// `carebridge ARGUMENTS` with its standard output into `output` and its errors appended to `errors`.
    private static func export(_ arguments: [String], into output: URL, errors: URL) async throws {
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        if !FileManager.default.fileExists(atPath: errors.path) {
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        }
        let out = try FileHandle(forWritingTo: output)
        defer { try? out.close() }
        let err = try FileHandle(forWritingTo: errors)
        defer { try? err.close() }
        _ = try err.seekToEnd()
        let process = Process()
        process.executableURL = RealBlueZ.carebridge
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let exited = await eventually(timeout: .seconds(180), interval: .milliseconds(100)) { !process.isRunning }
        if !exited {
            process.terminate()
            process.waitUntilExit()
            throw SetupError(description: "carebridge \(arguments.joined(separator: " ")) did not finish in 180 s")
        }
    }

    private static func bootOnce(
        scenarios: [String],
        into directory: URL,
        retryingAPanic: Bool
    ) async throws -> GuestRun {
        let script = RealBlueZ.harness.appendingPathComponent("guest/scenarios.sh").path
        let run = try await boot(
            ["/bin/bash", script, RealBlueZ.carebridge.path] + scenarios,
            budget: Self.budget(scenarios: scenarios),
            environment: [
                "CAREBRIDGE_VM_ENV": (ProcessInfo.processInfo.environment["CAREBRIDGE_VM_ENV"].map { $0 + " " } ?? "")
                    + "CAREBRIDGE_SCENARIO_BUDGET=\(Self.scenarioBudget) "
                    + "CAREBRIDGE_LONG_SCENARIOS=\(Self.longScenarios.sorted().joined(separator: ",")) "
                    + "CAREBRIDGE_LONG_SCENARIO_BUDGET=\(Self.longScenarioBudget)"
            ],
            into: directory,
            retryingAPanic: retryingAPanic
        )
        print(
            "real-bluez: one guest boot, \(scenarios.count) scenarios, \(Int(run.seconds)) s (results in \(directory.path))"
        )
        // The console beside the results, after an earlier boot's (Harness/timings.py reads the boot's figures).
        let console = directory.appendingPathComponent("console.txt")
        let seconds = String(format: "%.1f", run.seconds)
        let text = "--- boot: \(scenarios.joined(separator: " ")): \(seconds) s\n" + run.console
        if let handle = try? FileHandle(forWritingTo: console) {
            defer { try? handle.close() }
            _ = try? handle.seekToEnd()
            try? handle.write(contentsOf: Data(text.utf8))
        } else {
            try? text.write(to: console, atomically: false, encoding: .utf8)
        }
        // A scenario run again after bluetoothd crashed under it (Harness/guest/scenarios.sh) is said, never hidden.
        if let retried = try? String(contentsOf: directory.appendingPathComponent("retried.txt"), encoding: .utf8) {
            print("real-bluez: \(retried.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return run
    }

    /// One guest at a time in this test process: the tier's boot and `HubNetworkFaultTests`' would otherwise share
    /// two cores, and the tier's emulated devices miss each other's calls under such load.
    static let guests = ChildProcessSlots(limit: 1)

    /// One guest boot (`Harness/run-vm.sh`) running `command` (a guest script and its arguments, host paths) with
    /// `budget` seconds before QEMU is killed, its results share `directory`. Under TCG on a loaded host the guest
    /// kernel can panic before the command runs (its timer check fails); with `retryingAPanic` that boot is tried
    /// once more, and said, never hidden.
    static func boot(
        _ command: [String],
        budget: Int,
        environment: [String: String] = [:],
        into directory: URL,
        retryingAPanic: Bool = true
    ) async throws -> GuestRun {
        await guests.acquire()
        let started = ContinuousClock.now
        var result = (status: Int32(0), output: "")
        for attempt in 1...(retryingAPanic ? 2 : 1) {
            if attempt > 1 { print("real-bluez: the guest kernel panicked while booting; booting once more") }
            do {
                result = try await run(
                    RealBlueZ.harness.appendingPathComponent("run-vm.sh").path,
                    [directory.path] + command,
                    environment: environment.merging(["CAREBRIDGE_VM_TIMEOUT": "\(budget)"]) { $1 },
                    timeout: Double(budget + 60)
                )
            } catch {
                await guests.release()
                throw error
            }
            guard result.status == 125, result.output.contains("Kernel panic") else { break }
        }
        await guests.release()
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return GuestRun(directory: directory, status: result.status, console: result.output, seconds: seconds)
    }

    /// Runs a program to completion with its output (stdout and stderr) in a file, never a pipe: a chatty child
    /// cannot block on a full pipe while we wait for it.
    static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        timeout: Double
    ) async throws -> (status: Int32, output: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent(
            "carebridge-vm-\(UUID().uuidString).log"
        )
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let exited = await eventually(timeout: .seconds(timeout), interval: .milliseconds(250)) { !process.isRunning }
        if !exited {
            process.terminate()
            process.waitUntilExit()
        }
        return (process.terminationStatus, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }
}

/// What one scenario left in the results share.
struct ScenarioResult {
    var name: String
    var directory: URL
    var run: GuestRun

    init(name: String, directory: URL, run: GuestRun) throws {
        self.name = name
        self.directory = directory
        self.run = run
        guard FileManager.default.fileExists(atPath: directory.path) else {
            throw SetupError(
                description: "scenario \(name) did not run (guest exit \(run.status)); console:\n"
                    + String(run.console.suffix(6000))
            )
        }
    }

    func text(_ file: String) -> String {
        (try? String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)) ?? ""
    }

    /// Every wait of the scenario script succeeded.
    var stepsSucceeded: Bool { text("status").trimmingCharacters(in: .whitespacesAndNewlines) == "0" }

    /// The bridge's exit status after SIGTERM (nil if it was never stopped).
    var bridgeStatus: Int32? { Int32(text("bridge.status").trimmingCharacters(in: .whitespacesAndNewlines)) }

    /// The scenario's own log, the tail of the bridge's log and of each simulator's log, for failure messages.
    var diagnostics: String {
        var parts = ["scenario \(name):\n" + text("scenario.log")]
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for file in files.sorted() where file.hasSuffix(".log") && file != "scenario.log" {
            let lines = text(file).split(separator: "\n").filter {
                !$0.contains(" trace ") && !$0.contains("recorded samples")
            }
            parts.append("--- \(file):\n" + lines.suffix(40).joined(separator: "\n"))
        }
        return parts.joined(separator: "\n")
    }

    /// `carebridge samples --json` of the scenario's store (or of the replay's, with prefix "replay-").
    func samples(_ prefix: String = "") throws -> [Sample] {
        let data = try Data(contentsOf: directory.appendingPathComponent(prefix + "samples.json"))
        let objects = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        return objects.map(Sample.init)
    }

    /// Completed events (`carebridge events --json`).
    func completedEvents() throws -> [Event] {
        let data = try Data(contentsOf: directory.appendingPathComponent("events.json"))
        let objects = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        return objects.map(Event.init).filter(\.completed)
    }

    /// What a simulator sent (its --sent file), in order.
    func sent(by simulator: String) -> [Sent] {
        text("\(simulator).sent.jsonl").split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return nil
            }
            return Sent(
                kind: object["kind"] as? String ?? "",
                characteristic: object["characteristic"] as? String ?? "",
                value: object["value"] as? String ?? "",
                wall: (object["wall"] as? NSNumber)?.doubleValue ?? 0
            )
        }
    }

    /// Seconds between two marks of timings.txt (`start`, `bridge-started`, `end`, ...).
    func timing(_ key: String) -> Double? {
        for line in text("timings.txt").split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, fields[0] == key { return Double(fields[1]) }
        }
        return nil
    }
}

struct Sample: Sendable {
    var id: String
    var type: String
    var value: Double
    var unit: String
    var start: String
    var deviceTime: String?
    var payload: String
    var characteristic: String?
    var metadata: [String: String]

    init(_ object: [String: Any]) {
        id = object["id"] as? String ?? ""
        type = object["type"] as? String ?? ""
        value = (object["value"] as? NSNumber)?.doubleValue ?? .nan
        unit = object["unit"] as? String ?? ""
        start = object["start"] as? String ?? ""
        deviceTime = object["deviceTime"] as? String
        payload = object["payload"] as? String ?? ""
        characteristic = (object["source"] as? [String: Any])?["characteristic"] as? String
        metadata = object["metadata"] as? [String: String] ?? [:]
    }

    /// Rounded to what the device could express, for comparing with what a simulator sent.
    func rounded(_ places: Int = 2) -> Double {
        let scale = pow(10, Double(places))
        return (value * scale).rounded() / scale
    }
}

struct Event: Sendable {
    var task: String
    var completed: Bool
    var values: [Double]

    init(_ object: [String: Any]) {
        task = object["task"] as? String ?? ""
        completed = object["completed"] as? Bool ?? false
        values = (object["values"] as? [[String: Any]] ?? []).compactMap { ($0["value"] as? NSNumber)?.doubleValue }
    }
}

struct Sent: Sendable {
    var kind: String
    var characteristic: String
    var value: String
    var wall: Double
}
