import CareHub
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension HubSyncCommandTests {
    /// `ip` from iproute2, where Debian puts it.
    static let ipCommand = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// `tc` from iproute2.
    static let tcCommand = ["/usr/sbin/tc", "/sbin/tc", "/usr/bin/tc"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Network namespaces need root and iproute2; CI runs as root, so there a missing `ip` fails the test.
    static var networkTestsEnabled: Bool {
        PostgresServer.testsEnabled
            && ((geteuid() == 0 && ipCommand != nil) || ProcessInfo.processInfo.environment["CI"] == "true")
    }

    /// `tc netem` options put on both ends of every bridge's link before its first push
    /// (`CAREBRIDGE_HUB_NETEM`, e.g. `loss 25% delay 200ms 50ms`), or nil for clean links. The netem scheduler is a
    /// kernel module this machine's kernel and CI's lack, so the real-bluetoothd tier's guest (Debian's kernel) runs
    /// this test with it set: `Tests/RealBlueZTests/HubNetworkFaultTests.swift`.
    static let netem: [String]? = ProcessInfo.processInfo.environment["CAREBRIDGE_HUB_NETEM"].map {
        $0.split(separator: " ").map(String.init)
    }

    /// Three bridges, each in its own network namespace behind a veth pair with its own address, push over HTTPS
    /// (a test CA; home-3 with a client certificate, the others with tokens) to a hub in the host's namespace; one bridge's link goes down (a push fails and keeps its
    /// readings) and comes back, another's is down when its push starts and comes up while it retries. Every
    /// reading arrives once, in each bridge's order, and a plan put on the hub afterwards reaches every bridge once.
    /// With ``netem`` set, every link also loses and delays packets both ways the whole time.
    @Test(.enabled(if: networkTestsEnabled, "needs root and iproute2 (ip netns) and PostgreSQL"))
    func threeBridgesInTheirOwnNetworksReachTheHubOnceInOrderThroughALinkCutAndRestored() async throws {
        let ip = URL(fileURLWithPath: try #require(Self.ipCommand, "iproute2 is not installed"))
        let tag = String(UInt16.random(in: 0x1000...0xffff), radix: 16)
        let subnet = Int.random(in: 64...250)
        func run(_ arguments: [String], _ tool: URL? = nil) throws {
            let tool = tool ?? ip
            let output = try ChildProcess.run(tool, arguments)
            guard output.status == 0 else {
                throw PostgresServer.Failure(
                    description:
                        "\(tool.lastPathComponent) \(arguments.joined(separator: " ")): \(output.standardError)"
                )
            }
        }
        let bridges = ["home-1": "ann", "home-2": "ben", "home-3": "cat"]
        let names = bridges.keys.sorted()
        func namespace(_ index: Int) -> String { "cb\(tag)n\(index)" }
        func hostLink(_ index: Int) -> String { "cb\(tag)h\(index)" }
        func hubAddress(_ index: Int) -> String { "10.\(subnet).\(index).1" }
        defer {
            for index in 1...names.count { _ = try? ChildProcess.run(ip, ["netns", "del", namespace(index)]) }
        }
        for index in 1...names.count {
            let bridgeLink = "cb\(tag)b\(index)"
            try run(["netns", "add", namespace(index)])
            try run(["link", "add", hostLink(index), "type", "veth", "peer", "name", bridgeLink])
            try run(["link", "set", bridgeLink, "netns", namespace(index)])
            try run(["addr", "add", "\(hubAddress(index))/30", "dev", hostLink(index)])
            try run(["link", "set", hostLink(index), "up"])
            let inside = ["netns", "exec", namespace(index), ip.path]
            try run(inside + ["addr", "add", "10.\(subnet).\(index).2/30", "dev", bridgeLink])
            try run(inside + ["link", "set", bridgeLink, "up"])
            try run(inside + ["link", "set", "lo", "up"])
        }
        // Loss and delay both ways: the hub's answers leave through the host's end, the bridge's requests through
        // its own.
        let tc = try Self.netem.map { _ in URL(fileURLWithPath: try #require(Self.tcCommand, "tc is not installed")) }
        if let netem = Self.netem, let tc {
            for index in 1...names.count {
                try run(["qdisc", "add", "dev", hostLink(index), "root", "netem"] + netem, tc)
                try run(
                    [
                        "netns", "exec", namespace(index), tc.path, "qdisc", "add", "dev", "cb\(tag)b\(index)", "root",
                        "netem",
                    ] + netem
                )
            }
        }
        // A push that must get through: lost packets and retried handshakes take their time.
        let patience = Self.netem == nil ? 60 : 600

        let (postgres, passwordFile, options) = try await startPostgres()
        // PostgreSQL stays up here: on a slow machine (the QEMU guest, emulated) an answer may take longer than the
        // hub's 10 s, and that must not fail an enrolment.
        let database = options + ["--database-timeout", "300"]
        let authority = try TestCertificateAuthority()
        let server = try authority.issueServer(named: "hub", ipAddresses: (1...names.count).map(hubAddress))
        // home-3 shows a client certificate (its key made in its store's directory), the others their tokens.
        func file(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let clientCA = try await carebridge([
            "hub", "client-ca", "--certificate", file("clients-ca.pem"), "--key", file("clients-ca.key"),
        ])
        #expect(clientCA.status == 0, "\(clientCA)")
        let hub = try await ListeningProcess.start(
            ["hub", "serve"] + database + [
                "--listen", "0.0.0.0:0", "--tls-cert", server.certificate, "--tls-key", server.key,
                "--client-ca", file("clients-ca.pem"),
            ],
            prefix: "hub listening on ",
            directory: directory
        )
        let port = try #require(URLComponents(string: hub.url)?.port, "\(hub.url)")
        for (bridge, patient) in bridges.sorted(by: { $0.key < $1.key }) {
            let store = directory.appendingPathComponent("\(bridge).sqlite").path
            let added = try await carebridge([
                "patients", "add", patient, "--name", patient.capitalized, "--store", store,
            ])
            #expect(added.status == 0, "\(added)")
            try await ingest(store, count: 3, from: 0)
            var enrol = ["hub", "enrol"] + database + ["--bridge", bridge, "--patient", patient]
            if bridge == "home-3" {
                let request = try await carebridge([
                    "sync", "certificate-request", "--bridge", bridge, "--key", file("\(bridge).key"), "--csr",
                    file("\(bridge).csr"),
                ])
                #expect(request.status == 0, "\(request)")
                enrol += [
                    "--csr", file("\(bridge).csr"), "--client-ca-cert", file("clients-ca.pem"), "--client-ca-key",
                    file("clients-ca.key"),
                ]
            }
            let enrolled = try await carebridge(enrol)
            #expect(enrolled.status == 0, "\(enrolled)")
            try Data(enrolled.stdout.utf8).write(
                to: URL(fileURLWithPath: file(bridge == "home-3" ? "\(bridge).pem" : "\(bridge).token"))
            )
        }
        /// `carebridge sync push` inside the bridge's namespace, to the hub's address on its link.
        func push(_ bridge: String, timeout: Int) throws -> ChildProcess {
            let index = names.firstIndex(of: bridge)! + 1
            let credential =
                bridge == "home-3"
                ? ["--client-cert", file("\(bridge).pem"), "--client-key", file("\(bridge).key")]
                : ["--token-file", file("\(bridge).token")]
            return try ChildProcess(
                ip,
                [
                    "netns", "exec", namespace(index), PackageRoot.carebridgeExecutable.path, "sync", "push",
                    "--hub", "https://\(hubAddress(index)):\(port)", "--ca-file", authority.certificate,
                    "--timeout", "\(timeout)", "--store", file("\(bridge).sqlite"), "--json",
                ] + credential,
                environment: ["TZ": "Europe/Berlin"]
            )
        }
        for bridge in names {
            let pushed = try await push(bridge, timeout: patience).wait()
            #expect(
                pushed.status == 0 && pushed.standardOutput.contains(#""sent": 3"#),
                "\(pushed.standardOutput) \(pushed.standardError)"
            )
        }

        // home-2's link down: its push fails and keeps its readings; the others go on. Then the link comes back.
        for bridge in names {
            try await ingest(directory.appendingPathComponent("\(bridge).sqlite").path, count: 2, from: 3)
        }
        try run(["link", "set", hostLink(2), "down"])
        let cut = try await push("home-2", timeout: 3).wait()
        #expect(cut.status == 75, "\(cut.standardOutput)\(cut.standardError)")
        #expect(cut.standardError.contains("2 entries are still waiting for the hub"), "\(cut.standardError)")
        let other = try await push("home-1", timeout: patience).wait()
        #expect(
            other.status == 0 && other.standardOutput.contains(#""sent": 2"#),
            "\(other.standardOutput) \(other.standardError)"
        )
        try run(["link", "set", hostLink(2), "up"])
        let restored = try await push("home-2", timeout: patience).wait()
        #expect(restored.status == 0 && restored.standardOutput.contains(#""sent": 2"#), "\(restored.standardError)")

        // home-3's link down when its push starts; up while the push waits and retries.
        try run(["link", "set", hostLink(3), "down"])
        let waiting = try push("home-3", timeout: patience + 240)
        try run(["link", "set", hostLink(3), "up"])
        let retried = await waiting.wait()
        #expect(retried.status == 0 && retried.standardOutput.contains(#""sent": 2"#), "\(retried.standardError)")

        // A plan for each patient, put on the hub: each bridge's next push brings its patient's down, once.
        for (bridge, patient) in bridges {
            let plan = file("plan-\(patient).json")
            try Data(
                Self.plan.replacingOccurrences(
                    of: #""id": "ann", "name": "Ann""#,
                    with: #""id": "\#(patient)", "name": "\#(patient.capitalized)""#
                ).utf8
            )
            .write(to: URL(fileURLWithPath: plan))
            let applied = try await carebridge(["hub", "plan", "apply", "--patient", patient, plan] + database)
            #expect(applied.status == 0 && applied.stdout.contains("for \(bridge)"), "\(applied)")
        }
        for bridge in names {
            let pulled = try await push(bridge, timeout: patience).wait()
            #expect(pulled.status == 0, "\(pulled.standardOutput) \(pulled.standardError)")
            let summary = try JSONSerialization.jsonObject(with: Data(pulled.standardOutput.utf8)) as? [String: Any]
            #expect(summary?["changesApplied"] as? Int == 1, "\(bridge): \(pulled.standardOutput)")
            let shown = try await carebridge([
                "plan", "show", "--json", "--patient", bridges[bridge]!, "--store", file("\(bridge).sqlite"),
            ])
            let plan = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
            let tasks = (plan?["tasks"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(tasks.sorted() == ["medication", "pain"], "\(bridge): \(shown)")
        }

        // The links really lost packets (netem counts what it dropped).
        if let tc {
            var report = ""
            for index in 1...names.count {
                let shown = try await ChildProcess.run(tc, ["-s", "qdisc", "show", "dev", hostLink(index)])
                let inside = try await ChildProcess.run(
                    ip,
                    ["netns", "exec", namespace(index), tc.path, "-s", "qdisc", "show", "dev", "cb\(tag)b\(index)"]
                )
                report += "\(names[index - 1]) hub side:\n\(shown.standardOutput)bridge side:\n\(inside.standardOutput)"
            }
            print("hub network faults (netem \((Self.netem ?? []).joined(separator: " "))):\n\(report)")
            let dropped = report.matches(of: /dropped (\d+)/).compactMap { Int($0.1) }.reduce(0, +)
            #expect(dropped > 0, "netem dropped packets on the links: \(report)")
        }

        let held = try await heldSamples(postgres: postgres, passwordFile: passwordFile)
        for bridge in names {
            let local = try await carebridge([
                "samples", "--json", "--store", directory.appendingPathComponent("\(bridge).sqlite").path,
            ])
            let samples = try #require(
                try JSONSerialization.jsonObject(with: Data(local.stdout.utf8)) as? [[String: Any]]
            )
            let ids = samples.compactMap { $0["id"] as? String }
            let rows = held.filter { $0.bridge == bridge }
            #expect(ids.count == 5)
            #expect(rows.map(\.id) == ids, "\(bridge): every reading once, in the bridge's order")
            #expect(Set(rows.map(\.patient)) == [bridges[bridge]!])
        }
        let stopped = try await hub.stop()
        #expect(stopped.exited && stopped.status == 0, "\(hub.stderr)")
        await postgres.stop()
    }
}
