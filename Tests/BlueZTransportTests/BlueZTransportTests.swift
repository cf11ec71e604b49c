import BlueZTransport
import BridgeCore
import BridgeFoundation
import DeviceSessions
import Foundation
import GATTDecoding
import Testing

/// The transport against a fake bluetoothd on a private bus: the real D-Bus path, no radio.
extension FakeBlueZSuites {
    @Suite
    struct BlueZTransportTests {
        static let scale = "C4:7C:8D:6A:3E:10"
        static let scaleSpec = """
            {"name": "WS-1", "services": {"181D": [["2A9D", "indicate"]], "180A": [["2A29", "read"]], \
            "180F": [["2A19", "read,notify"]]}, "reads": {"2A29": "4361726542726964676520536361", "2A19": "5a"}}
            """
        static let scaleAdvert = #"{"name": "WS-1", "rssi": -58, "serviceUUIDs": ["181D"]}"#

        func transport(
            _ fake: FakeBlueZ,
            policy: TestPolicy = TestPolicy(gatt: [.weightScaleService: TestPolicy.weightScale])
        )
            -> (BlueZTransport, EventCollector)
        {
            let collector = EventCollector()
            let transport = BlueZTransport(
                configuration: .testing(fake.address),
                policy: policy,
                logger: .test,
                status: { collector.record($0) }
            )
            return (transport, collector)
        }

        @Test func advertisementsCarryServiceDataAndUseTheLeDuplicateFilterWithoutUUIDs() async throws {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            try await fake.addPeripheral("D0:3E:7D:11:22:33", #"{"name": "MIBFS"}"#)
            let (transport, collector) = transport(fake)
            collector.start(transport)
            #expect(await FakeBlueZ.eventually { collector.statusLog.contains(.ready(adapter: "hci0")) })
            try await fake.advertise(
                "D0:3E:7D:11:22:33",
                #"{"name": "MIBFS", "rssi": -61, "serviceData": {"181B": "0224e8070b150c1e0af401b80b"}, "manufacturerData": {"0157": "0102"}}"#
            )
            let seen = await FakeBlueZ.eventually {
                collector.events.contains {
                    guard case .advertisement(let ad) = $0.kind else { return false }
                    return ad.serviceData[BluetoothUUID(0x181B)] == [
                        0x02, 0x24, 0xE8, 0x07, 0x0B, 0x15, 0x0C, 0x1E, 0x0A, 0xF4, 0x01, 0xB8, 0x0B,
                    ]
                }
            }
            #expect(seen)
            let advert = collector.events.compactMap { event -> Advertisement? in
                if case .advertisement(let ad) = event.kind, !ad.serviceData.isEmpty { return ad } else { return nil }
            }.last
            #expect(advert?.name == "MIBFS")
            #expect(advert?.rssi == -61)
            #expect(advert?.manufacturerData[0x0157] == [0x01, 0x02])
            #expect(collector.events.last?.device == "D0:3E:7D:11:22:33")
            // Cancelling the consumer finishes our collection at once; the transport's graceful stop (which ends
            // our discovery session) runs on after that, so wait for it rather than read the journal at once.
            await collector.stop()
            let discoveryEnded = try await FakeBlueZ.eventually {
                let last = try await fake.journal().last {
                    $0.hasPrefix("StopDiscovery") || $0.hasPrefix("StartDiscovery")
                }
                return last?.hasPrefix("StopDiscovery") == true
            }
            #expect(discoveryEnded, "a graceful stop ends our discovery session")
            let journal = try await fake.journal()
            let filter = try #require(journal.firstIndex { $0.hasPrefix("SetDiscoveryFilter") })
            #expect(journal[filter] == "SetDiscoveryFilter DuplicateData=1,Transport=le")
            let start = try #require(journal.firstIndex { $0.hasPrefix("StartDiscovery") })
            #expect(filter < start)
        }

        @Test func connectsPerPlanStoppingDiscoveryFirstSubscribingAfterTheMatchAndReadingOnce() async throws {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            try await fake.addPeripheral(Self.scale, Self.scaleSpec)
            let (transport, collector) = transport(fake)
            collector.start(transport)
            #expect(await FakeBlueZ.eventually { collector.statusLog.contains(.ready(adapter: "hci0")) })
            try await fake.advertise(Self.scale, Self.scaleAdvert)
            #expect(
                try await FakeBlueZ.eventually { try await fake.journal().contains { $0.hasPrefix("StartNotify") } }
            )
            let measurement = "0ea438e807030f071e00051801d006"
            #expect(
                await FakeBlueZ.eventually {
                    _ = try? await fake.mockCall(
                        "Notify",
                        [.string(Self.scale), .string("2A9D"), .string(measurement)]
                    )
                    return !collector.values(.weightMeasurement).isEmpty
                }
            )
            #expect(collector.values(.weightMeasurement, delivery: .indication).first == (try Hex.bytes(measurement)))
            #expect(await FakeBlueZ.eventually { collector.values(.batteryLevel, delivery: .read) == [[0x5A]] })
            #expect(collector.values(.manufacturerNameString, delivery: .read) == [Array("CareBridge Sca".utf8)])
            let kinds = collector.events.filter { $0.device == Self.scale }.map(\.kind)
            let connected = try #require(kinds.firstIndex(of: .connected))
            let services = try #require(kinds.firstIndex { if case .servicesDiscovered = $0 { true } else { false } })
            #expect(connected < services)
            if case .servicesDiscovered(let map) = kinds[services] {
                #expect(map[.weightScaleService] == [.weightMeasurement])
            }
            await collector.shutDown(transport)

            let journal = try await fake.journal()
            let stop = try #require(journal.firstIndex { $0.hasPrefix("StopDiscovery") })
            let connect = try #require(journal.firstIndex { $0.hasPrefix("Connect ") })
            #expect(stop < connect, "StopDiscovery must precede Connect: \(journal)")
            let startNotify = try #require(journal.first { $0.hasPrefix("StartNotify") })
            #expect(startNotify.hasSuffix("match=yes"), "PropertiesChanged match must exist before StartNotify")
            // Graceful shutdown: StopNotify, then Disconnect; never RemoveDevice.
            #expect(journal.contains("StopNotify \(Self.scale) 2a9d"))
            #expect(journal.contains("Disconnect \(Self.scale) local"))
            #expect(!journal.contains { $0.hasPrefix("RemoveDevice") })
            #expect(collector.events.last { $0.device == Self.scale }?.kind == .disconnected(reason: "local"))
            #expect(collector.error == nil)
        }

        /// What the real bluetoothd 5.66 does (seen in the VM tier, Tests/RealBlueZTests): the Connect reply comes
        /// before any property change, `Connected = true` is never signalled for the link we initiated, and the
        /// GATT objects are announced one by one after `ServicesResolved`. The mirror's `Connected` is still
        /// `false` from discovery then; treating it as a disconnect stored nothing against the real daemon.
        @Test func connectAnsweredBeforeAnyConnectedSignalStillEstablishesTheSession() async throws {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            try await fake.addPeripheral(Self.scale, Self.scaleSpec)
            let (transport, collector) = transport(fake)
            collector.start(transport)
            #expect(await FakeBlueZ.eventually { collector.statusLog.contains(.ready(adapter: "hci0")) })
            try await fake.advertise(Self.scale, Self.scaleAdvert)
            #expect(
                try await FakeBlueZ.eventually { try await fake.journal().contains { $0.hasPrefix("StartNotify") } }
            )
            // Read-once characteristics announced after the subscribed one are read too.
            #expect(await FakeBlueZ.eventually { collector.values(.batteryLevel, delivery: .read) == [[0x5A]] })
            #expect(collector.values(.manufacturerNameString, delivery: .read).count == 1)
            let kinds = collector.events.filter { $0.device == Self.scale }.map(\.kind)
            #expect(kinds.filter { $0 == .connected }.count == 1)
            #expect(!kinds.contains { if case .disconnected = $0 { true } else { false } }, "\(kinds)")
            #expect(!kinds.contains { if case .error = $0 { true } else { false } }, "\(kinds)")
            let journal = try await fake.journal()
            #expect(journal.filter { $0 == "Connect \(Self.scale)" }.count == 1, "one attempt: \(journal)")
            // Stamped in whole milliseconds, as recordings write them (replays give back the same samples).
            let stamps = collector.events.map { $0.time.timeIntervalSince1970 * 1000 }
            #expect(stamps.allSatisfy { abs($0 - $0.rounded()) < 0.001 }, "\(stamps)")
            await collector.shutDown(transport)
        }

        @Test func startDiscoveryInProgressIsRetriedWithBackoff() async throws {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            try await fake.setFault("start_discovery_in_progress", "2")
            let (transport, collector) = transport(fake)
            collector.start(transport)
            #expect(await FakeBlueZ.eventually { collector.statusLog.contains(.ready(adapter: "hci0")) })
            let starts = try await fake.journal().filter { $0.hasPrefix("StartDiscovery") }
            #expect(starts.count >= 3)
            #expect(collector.error == nil)
            await collector.stop()
        }

        @Test func missingAdapterIsAClearError() async throws {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            let (transport, collector) = transport(fake)
            collector.start(transport)
            #expect(await FakeBlueZ.eventually { collector.finished })
            let error = try #require(collector.error as? TransportError)
            #expect(error.code == .noAdapter)
            #expect(error.message.contains("no Bluetooth adapter"))
        }

        @Test func namedAdapterThatDoesNotExistListsTheOthers() async throws {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter("hci0")
            var configuration = BlueZConfiguration.testing(fake.address)
            configuration.adapter = "hci3"
            let collector = EventCollector()
            collector.start(BlueZTransport(configuration: configuration, policy: nil, logger: .test))
            #expect(await FakeBlueZ.eventually { collector.finished })
            let error = try #require(collector.error as? TransportError)
            #expect(error.code == .noAdapter)
            #expect(error.message.contains("hci3 not found; available: hci0"))
        }

        @Test func bluetoothdNotRunningIsAClearError() async throws {
            let fake = try await FakeBlueZ(startBlueZ: false)
            defer { fake.stop() }
            let (transport, collector) = transport(fake)
            collector.start(transport)
            #expect(await FakeBlueZ.eventually { collector.finished })
            let error = try #require(collector.error as? TransportError)
            #expect(error.code == .bluetoothdNotRunning)
        }

        @Test func poweredOffAdapterIsPoweredOn() async throws {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            try await fake.mockCall("SetAdapterPowered", [.string("hci0"), .boolean(false)])
            let (transport, collector) = transport(fake)
            collector.start(transport)
            #expect(await FakeBlueZ.eventually { collector.statusLog.contains(.ready(adapter: "hci0")) })
            let powered = try await fake.control.call(
                DBusMethodCall(
                    destination: "org.bluez",
                    path: "/org/bluez/hci0",
                    interface: "org.freedesktop.DBus.Properties",
                    member: "Get",
                    arguments: [.string("org.bluez.Adapter1"), .string("Powered")]
                )
            )
            #expect(powered.arguments.first?.bool == true)
            await collector.stop()
        }
    }
}

extension FakeBlueZSuites.BlueZTransportTests {
    /// The scale on the fake with a profile that requires a bond (kept or renewed every session), advertising
    /// until the transport has subscribed; the caller shuts the transport down.
    func pairedScale(_ fake: FakeBlueZ, renewal: BondRenewal = .once) async throws -> (BlueZTransport, EventCollector) {
        try await fake.addAdapter()
        try await fake.addPeripheral(Self.scale, Self.scaleSpec)
        var plan = TestPolicy.weightScale
        plan.requiresPairing = true
        plan.bondRenewal = renewal
        let (transport, collector) = transport(fake, policy: TestPolicy(gatt: [.weightScaleService: plan]))
        collector.start(transport)
        #expect(await FakeBlueZ.eventually { collector.statusLog.contains(.ready(adapter: "hci0")) })
        try await fake.advertise(Self.scale, Self.scaleAdvert)
        #expect(try await FakeBlueZ.eventually { try await fake.journal().contains { $0.hasPrefix("StartNotify") } })
        return (transport, collector)
    }

    @Test func bondingProfileRegistersTheAgentAndPairsBeforeSubscribing() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        let (transport, collector) = try await pairedScale(fake)
        let journal = try await fake.journal()
        let pair = try #require(journal.firstIndex(of: "Pair \(Self.scale)"))
        let startNotify = try #require(journal.firstIndex { $0.hasPrefix("StartNotify") })
        #expect(pair < startNotify)
        let registered = try await fake.control.call(
            DBusMethodCall(
                destination: "org.bluez",
                path: "/org/bluez",
                interface: "org.freedesktop.DBus.Mock",
                member: "GetMethodCalls",
                arguments: [.string("RegisterAgent")]
            )
        )
        #expect("\(registered.arguments)".contains("/org/carebridge/agent"))
        await collector.shutDown(transport)
    }
}

extension FakeBlueZSuites.BlueZTransportTests {
    @Test func aBondRenewedEverySessionIsRemovedWhenTheSessionEndsAndAKeptOneIsNot() async throws {
        for renewal in BondRenewal.allCases {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            let (transport, collector) = try await pairedScale(fake, renewal: renewal)
            await collector.shutDown(transport)
            let journal = try await fake.journal()
            let pair = try #require(journal.firstIndex(of: "Pair \(Self.scale)"))
            let removals = journal.indices.filter { journal[$0].hasPrefix("RemoveDevice") }
            switch renewal {
            case .once:
                #expect(removals.isEmpty, "a kept bond is never removed: \(journal)")
            case .everySession:
                #expect(removals.count == 1, "\(journal)")
                let disconnect = try #require(journal.firstIndex(of: "Disconnect \(Self.scale) local"))
                #expect(pair < disconnect && disconnect < removals[0], "paired, used, then removed: \(journal)")
            }
        }
    }
}

extension FakeBlueZSuites.BlueZTransportTests {
    @Test func adapterRemovedPausesAndItsReturnResumes() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter()
        let (transport, collector) = transport(fake)
        collector.start(transport)
        #expect(await FakeBlueZ.eventually { collector.statusLog.contains(.ready(adapter: "hci0")) })
        try await fake.mockCall("RemoveAdapterWithDevices", [.string("hci0")])
        #expect(
            await FakeBlueZ.eventually {
                collector.statusLog.contains(.paused(reason: "adapter hci0 was removed"))
            }
        )
        try await fake.addAdapter()
        #expect(await FakeBlueZ.eventually { collector.statusLog.contains(.resumed(adapter: "hci0")) })
        #expect(try await fake.journal().filter { $0.hasPrefix("StartDiscovery") }.count == 2)
        #expect(!collector.finished)
        await collector.shutDown(transport)
    }
}

extension FakeBlueZSuites.BlueZTransportTests {
    @Test func currentTimeIsWrittenWhenTheProfileAsksAndTheUserEnabledIt() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter()
        let spec = """
            {"name": "WS-1", "services": {"181D": [["2A9D", "indicate"]], "1805": [["2A2B", "read,write,notify"]]}}
            """
        try await fake.addPeripheral(Self.scale, spec)
        var plan = TestPolicy.weightScale
        plan.setsDeviceClock = true
        let collector = EventCollector()
        var configuration = BlueZConfiguration.testing(fake.address)
        configuration.setDeviceClock = true
        configuration.timeZone = TimeZone(identifier: "UTC")!
        let transport = BlueZTransport(
            configuration: configuration,
            policy: TestPolicy(gatt: [.weightScaleService: plan]),
            logger: .test,
            status: { collector.record($0) }
        )
        collector.start(transport)
        #expect(await FakeBlueZ.eventually { collector.statusLog.contains(.ready(adapter: "hci0")) })
        try await fake.advertise(Self.scale, Self.scaleAdvert)
        let written = try await FakeBlueZ.eventually {
            try await fake.journal().contains { $0.hasPrefix("WriteValue \(Self.scale) 2a2b") }
        }
        #expect(written)
        let entry = try #require(try await fake.journal().first { $0.hasPrefix("WriteValue") })
        let hex = try #require(entry.split(separator: " ").last)
        let bytes = try Hex.bytes(String(hex))
        #expect(bytes.count == 10, "Exact Time 256 (9 bytes) + Adjust Reason")
        let year = Int(bytes[0]) | Int(bytes[1]) << 8
        #expect(
            year == Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).year
        )
        await collector.shutDown(transport)
    }

    @Test func rfkillBlockedAdapterIsAConfigurationError() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter()
        try await fake.mockCall("BlockAdapter", [.string("hci0")])
        let result = try await CarebridgeBinary.run(["scan", "--timeout", "2"], bus: fake.address)
        #expect(result.status == 78)
        #expect(result.stderr.contains("blocked by rfkill: run `rfkill unblock bluetooth`"))
    }

    @Test func systemdUnitIsTypeNotifyWithAWatchdog() async throws {
        let result = try await CarebridgeBinary.run(["systemd-unit", "--executable", "/opt/cb/carebridge"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Type=notify"))
        #expect(result.stdout.contains("WatchdogSec="))
        #expect(result.stdout.contains("ExecStart=/opt/cb/carebridge run --store /var/lib/carebridge/store.sqlite"))
        #expect(result.stdout.contains("SupplementaryGroups=bluetooth"))
    }
}

@Suite struct HardwareViewTests {
    @Test func bluetoothAddressesAreValidatedAndNormalisedByLibbluetooth() {
        #expect(BluetoothAddress("c4:7c:8d:6a:3e:10")?.description == "C4:7C:8D:6A:3E:10")
        #expect(BluetoothAddress("c4:7c:8d:6a:3e:10")?.pathElement == "dev_C4_7C_8D_6A_3E_10")
        #expect(BluetoothAddress("C4:7C:8D:6A:3E") == nil)
        #expect(BluetoothAddress("C4:7C:8D:6A:3E:1G") == nil)
        #expect(BluetoothAddress("C4-7C-8D-6A-3E-10") == nil)
    }

    @Test func udevListsOnlyHostControllers() throws {
        let controllers = try UdevControllers.list()
        let sysfs = (try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/bluetooth")) ?? []
        #expect(Set(controllers.map(\.name)) == Set(sysfs.filter { $0.hasPrefix("hci") && !$0.contains(":") }))
    }

    @Test func adapterReportJoinsUdevAndBlueZByName() {
        let hardware = [
            BluetoothController(
                name: "hci1",
                sysPath: "/sys/devices/usb1/hci1",
                usbVendorID: "0a12",
                usbProductID: "0001",
                bus: "usb"
            )
        ]
        let bluez = [
            BlueZAdapterState(name: "hci0", address: "00:01:02:03:04:05", powered: true, discovering: false),
            BlueZAdapterState(name: "hci1", address: "00:1A:7D:DA:71:13", powered: false, discovering: false),
        ]
        let report = BlueZAdapters.report(hardware: hardware, bluez: bluez)
        #expect(report.map(\.name) == ["hci0", "hci1"])
        #expect(report[0].hardware == nil)
        #expect(report[1].hardware?.usbVendorID == "0a12")
        #expect(report[1].bluez?.powered == false)
    }
}
