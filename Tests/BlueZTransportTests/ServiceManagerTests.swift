import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `carebridge run` under a (simulated) systemd: a NOTIFY_SOCKET datagram socket of our own.
extension FakeBlueZSuites {
    @Suite
    struct ServiceManagerTests {
        /// A bound AF_UNIX datagram socket that collects sd_notify messages.
        final class NotifySocket {
            let path: String
            let fd: Int32

            init() throws {
                path =
                    FileManager.default.temporaryDirectory.appendingPathComponent(
                        "notify-\(UUID().uuidString.prefix(8))"
                    ).path
                fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
                var address = sockaddr_un()
                address.sun_family = sa_family_t(AF_UNIX)
                let bytes = Array(path.utf8)
                withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                    for (index, byte) in bytes.enumerated() { buffer[index] = byte }
                    buffer[bytes.count] = 0
                }
                let bound = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
                guard fd >= 0, bound == 0 else { throw FakeBlueZ.SetupError(description: "cannot bind \(path)") }
            }

            /// Every message received so far.
            func drain() -> [String] {
                var messages: [String] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                    if count <= 0 { break }
                    messages.append(String(decoding: buffer[0..<count], as: UTF8.self))
                }
                return messages
            }

            deinit {
                close(fd)
                unlink(path)
            }
        }

        @Test func runNotifiesReadyAndWatchdogThenStopsGracefullyOnSIGTERM() async throws {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            let socket = try NotifySocket()
            let store = FileManager.default.temporaryDirectory.appendingPathComponent(
                "notify-\(UUID().uuidString).sqlite"
            ).path
            defer { try? FileManager.default.removeItem(atPath: store) }
            let bridge = try CarebridgeBinary(
                ["run", "--store", store, "--scanner-watchdog", "4"],
                bus: fake.address,
                environment: ["NOTIFY_SOCKET": socket.path]
            )
            var messages: [String] = []
            let ready = await FakeBlueZ.eventually(timeout: .seconds(120)) {
                messages += socket.drain()
                return messages.contains { $0.contains("READY=1") } && messages.contains { $0.contains("WATCHDOG=1") }
            }
            #expect(ready, "sd_notify messages: \(messages); stderr: \(bridge.stderr)")
            #expect(messages.first { $0.contains("READY=1") }?.contains("STATUS=discovering on hci0") == true)
            #expect(await bridge.terminate() == 0, "\(bridge.stderr)")
            messages += socket.drain()
            #expect(messages.contains("STOPPING=1"))
            let journal = try await fake.journal()
            #expect(
                journal.last { $0.hasPrefix("StartDiscovery") || $0.hasPrefix("StopDiscovery") }?.hasPrefix(
                    "StopDiscovery"
                ) == true
            )
        }
    }
}
