import BlueZTransport
import BridgeCore
import BridgeFoundation
import BridgeRuntime
import DeviceProfiles
import Foundation
import GATTDecoding
import Testing

/// Faults bluetoothd and devices produce in the field, injected by the fake. Each run must end with the
/// transport still running and every notification of the recording delivered exactly once.
extension FakeBlueZSuites {
    @Suite
    struct FaultTests {
        static let catalog = FakeBlueZ.catalog
        static let burst = "weight-scale-stored-burst.jsonl"
        static let burstDevice = "02:00:00:00:00:02"
        static let heartRate = "heart-rate-strap-20-minutes.jsonl"
        static let heartRateDevice = "02:00:00:00:00:05"

        /// The notification and indication payloads of a recording, in order.
        static func notifications(_ recording: String) throws -> [[UInt8]] {
            let text = try String(contentsOf: FakeBlueZ.recordings.appendingPathComponent(recording), encoding: .utf8)
            return try text.split(separator: "\n").compactMap { line in
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                guard let kind = object?["kind"] as? String, kind == "notification" || kind == "indication",
                    let hex = object?["value"] as? String
                else { return nil }
                return try Hex.bytes(hex)
            }
        }

        func start(
            _ fake: FakeBlueZ,
            configure: (inout BlueZConfiguration) -> Void = { _ in }
        ) -> (BlueZTransport, EventCollector) {
            fake.transport(configure: configure)
        }

        /// Plays `recording` with `fault` set and checks nothing was lost or duplicated.
        func playLosslessly(
            _ recording: String,
            device: String,
            faults: [(String, String)],
            characteristic: BluetoothUUID,
            expectDisconnects: Int
        ) async throws -> (FakeBlueZ, EventCollector, BlueZTransport) {
            let fake = try await FakeBlueZ()
            do {
                return try await playLosslessly(
                    fake,
                    recording,
                    faults: faults,
                    characteristic: characteristic,
                    expectDisconnects: expectDisconnects
                )
            } catch {
                fake.stop()
                throw error
            }
        }

        private func playLosslessly(
            _ fake: FakeBlueZ,
            _ recording: String,
            faults: [(String, String)],
            characteristic: BluetoothUUID,
            expectDisconnects: Int
        ) async throws -> (FakeBlueZ, EventCollector, BlueZTransport) {
            try await fake.addAdapter()
            for (name, value) in faults { try await fake.setFault(name, value) }
            let (transport, collector) = start(fake)
            #expect(await FakeBlueZ.eventually { collector.statusLog.contains(.ready(adapter: "hci0")) })
            try await fake.play(FakeBlueZ.recordings.appendingPathComponent(recording))
            let status = try await fake.waitForPlayback(timeout: .seconds(180))
            #expect(status.done, "playback stuck with \(status.pending) events; \(collector.events.suffix(5))")
            let expected = try Self.notifications(recording)
            // Every recording ends with the device hanging up after its last notification, and the transport reports
            // one device's signals in the order bluetoothd sent them: once that disconnect is in, a duplicate of any
            // notification before it would be in too.
            #expect(
                await FakeBlueZ.eventually { collector.hungUpAfterLastValue(characteristic, count: expected.count) },
                "no disconnect after the last notification; \(collector.events.suffix(5))"
            )
            #expect(collector.values(characteristic) == expected, "lost or duplicated notifications")
            let disconnects = collector.count {
                if case .disconnected(let reason) = $0 { reason != "local" } else { false }
            }
            #expect(disconnects >= expectDisconnects)
            #expect(!collector.finished, "the transport must keep running: \(String(describing: collector.error))")
            return (fake, collector, transport)
        }

        @Test func disconnectInTheMiddleOfAStoredHistoryDownload() async throws {
            let (fake, collector, transport) = try await playLosslessly(
                Self.burst,
                device: Self.burstDevice,
                faults: [("disconnect_after", "\(Self.burstDevice)=2")],
                characteristic: .weightMeasurement,
                expectDisconnects: 1
            )
            defer { fake.stop() }
            #expect(collector.count { $0 == .connected } >= 2, "reconnects after the drop")
            await collector.shutDown(transport)
        }

        @Test func deviceObjectVanishingMidSessionIsReResolved() async throws {
            let (fake, collector, transport) = try await playLosslessly(
                Self.burst,
                device: Self.burstDevice,
                faults: [("vanish_after", "\(Self.burstDevice)=1")],
                characteristic: .weightMeasurement,
                expectDisconnects: 1
            )
            defer { fake.stop() }
            #expect(collector.events.contains { $0.kind == .disconnected(reason: "vanished") })
            let journal = try await fake.journal()
            #expect(journal.contains("vanish \(Self.burstDevice)"))
            #expect(journal.filter { $0 == "Connect \(Self.burstDevice)" }.count >= 2)
            await collector.shutDown(transport)
        }

        @Test func bluetoothdRestartLosesAndDuplicatesNothing() async throws {
            let (fake, collector, transport) = try await playLosslessly(
                Self.heartRate,
                device: Self.heartRateDevice,
                faults: [("restart_after", "300")],
                characteristic: BluetoothUUID(0x2A37),
                expectDisconnects: 1
            )
            defer { fake.stop() }
            #expect(collector.events.contains { $0.kind == .disconnected(reason: "bluetoothd-restart") })
            #expect(collector.statusLog.contains { if case .paused = $0 { true } else { false } })
            #expect(collector.statusLog.contains(.resumed(adapter: "hci0")))
            let journal = try await fake.journal()
            let restart = try #require(journal.firstIndex(of: "bluetoothd start"))
            #expect(
                journal[restart...].contains { $0.hasPrefix("StartDiscovery") },
                "discovery restarted after bluetoothd"
            )
            await collector.shutDown(transport)
        }

        @Test func notificationArrivingBeforeTheStartNotifyReplyIsKept() async throws {
            let (fake, collector, transport) = try await playLosslessly(
                Self.burst,
                device: Self.burstDevice,
                faults: [("notify_in_start_notify", "1")],
                characteristic: .weightMeasurement,
                expectDisconnects: 0
            )
            defer { fake.stop() }
            let journal = try await fake.journal()
            let start = try #require(journal.firstIndex { $0.hasPrefix("StartNotify \(Self.burstDevice) 2a9d") })
            #expect(journal[start + 1] == "notify \(Self.burstDevice) 2a9d", "the fake emitted inside StartNotify")
            await collector.shutDown(transport)
        }

        @Test func characteristicsExportedAfterServicesResolvedAreAwaited() async throws {
            let (fake, collector, transport) = try await playLosslessly(
                Self.burst,
                device: Self.burstDevice,
                faults: [("late_characteristics", "600")],
                characteristic: .weightMeasurement,
                expectDisconnects: 0
            )
            defer { fake.stop() }
            await collector.shutDown(transport)
        }

        @Test func deviceThatNeverResolvesServicesIsDroppedAndTheBridgeKeepsRunning() async throws {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            try await fake.setFault("never_resolve", Self.burstDevice)
            let (transport, collector) = start(fake) { $0.servicesTimeout = .milliseconds(700) }
            #expect(await FakeBlueZ.eventually { collector.statusLog.contains(.ready(adapter: "hci0")) })
            try await fake.play(FakeBlueZ.recordings.appendingPathComponent(Self.burst))
            #expect(
                await FakeBlueZ.eventually(timeout: .seconds(120)) {
                    collector.events.contains { if case .error = $0.kind { true } else { false } }
                }
            )
            let journal = try await fake.journal()
            let error = collector.events.compactMap { event -> String? in
                if case .error(let message) = event.kind { message } else { nil }
            }.first
            #expect(error?.contains("services not resolved") == true, "gave up on the timeout class: \(error ?? "-")")
            #expect(error?.contains("after 3 attempt(s)") == true || error?.contains("after 4 attempt(s)") == true)
            #expect(journal.filter { $0 == "Connect \(Self.burstDevice)" }.count >= 3)
            #expect(journal.contains("Disconnect \(Self.burstDevice) local"), "a half-open link is closed")
            #expect(collector.values(.weightMeasurement).isEmpty)
            // Still discovering and reporting other devices.
            try await fake.play(
                FakeBlueZ.recordings.appendingPathComponent("mi-body-composition-scale-2-broadcast.jsonl")
            )
            #expect(
                await FakeBlueZ.eventually {
                    collector.events.contains { $0.device == "02:00:00:00:00:08" }
                }
            )
            #expect(!collector.finished)
            await collector.shutDown(transport)
        }

        @Test func silentScannerIsRestartedThenPowerCycledThenGivesUp() async throws {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            let (transport, collector) = start(fake)
            // The watchdog is a service of the bridge's group; here it runs beside the transport on its own.
            let watchdog = ScannerWatchdog(
                scanner: transport.scanner,
                silenceLimit: .milliseconds(800),
                clock: ContinuousClock(),
                logger: .test
            )
            let supervision = Task { try await watchdog.run() }
            defer { supervision.cancel() }
            #expect(await FakeBlueZ.eventually(timeout: .seconds(120)) { collector.finished })
            let error = try #require(collector.error as? TransportError)
            #expect(error.code == .scannerWedged)
            #expect(error.exitCode == 75)
            let starts = try await fake.journal().filter { $0.hasPrefix("StartDiscovery") }
            #expect(starts.count == 3, "initial start, restart, restart after the power cycle")
        }
    }
}
