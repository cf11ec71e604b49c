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

    /// Network namespaces need root and iproute2; CI runs as root, so there a missing `ip` fails the test.
    static var networkTestsEnabled: Bool {
        PostgresServer.testsEnabled
            && ((geteuid() == 0 && ipCommand != nil) || ProcessInfo.processInfo.environment["CI"] == "true")
    }

    /// Three bridges, each in its own network namespace behind a veth pair with its own address, push over HTTPS
    /// (a test CA; home-3 with a client certificate, the others with tokens) to a hub in the host's namespace; one bridge's link goes down (a push fails and keeps its
    /// readings) and comes back, another's is down when its push starts and comes up while it retries. Every
    /// reading arrives once, in each bridge's order.
    @Test(.enabled(if: networkTestsEnabled, "needs root and iproute2 (ip netns) and PostgreSQL"))
    func threeBridgesInTheirOwnNetworksReachTheHubOnceInOrderThroughALinkCutAndRestored() async throws {
        let ip = URL(fileURLWithPath: try #require(Self.ipCommand, "iproute2 is not installed"))
        let tag = String(UInt16.random(in: 0x1000...0xffff), radix: 16)
        let subnet = Int.random(in: 64...250)
        func run(_ arguments: [String]) throws {
            let output = try ChildProcess.run(ip, arguments)
            guard output.status == 0 else {
                throw PostgresServer.Failure(
                    description: "ip \(arguments.joined(separator: " ")): \(output.standardError)"
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

        let (postgres, passwordFile, database) = try await startPostgres()
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
            let pushed = try await push(bridge, timeout: 60).wait()
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
        let other = try await push("home-1", timeout: 60).wait()
        #expect(
            other.status == 0 && other.standardOutput.contains(#""sent": 2"#),
            "\(other.standardOutput) \(other.standardError)"
        )
        try run(["link", "set", hostLink(2), "up"])
        let restored = try await push("home-2", timeout: 60).wait()
        #expect(restored.status == 0 && restored.standardOutput.contains(#""sent": 2"#), "\(restored.standardError)")

        // home-3's link down when its push starts; up while the push waits and retries.
        try run(["link", "set", hostLink(3), "down"])
        let waiting = try push("home-3", timeout: 300)
        try run(["link", "set", hostLink(3), "up"])
        let retried = await waiting.wait()
        #expect(retried.status == 0 && retried.standardOutput.contains(#""sent": 2"#), "\(retried.standardError)")

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
