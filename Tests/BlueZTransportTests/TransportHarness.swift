import BlueZTransport
import BridgeCore
import BridgeFoundation
import DeviceProfiles
import DeviceSessions
import Foundation
import GATTDecoding
import Logging
import Synchronization
import Testing

/// A policy for tests: devices advertising one of `gatt`'s services get that plan; the rest are broadcast.
struct TestPolicy: ConnectionPolicy {
    var gatt: [BluetoothUUID: ConnectionPlan] = [:]

    func plan(forDevice address: String, advertisement: Advertisement) -> ConnectionPlan? {
        for uuid in advertisement.serviceUUIDs {
            if let plan = gatt[uuid] { return plan }
        }
        if !advertisement.serviceData.isEmpty { return ConnectionPlan(profile: "broadcast", linkMode: .broadcast) }
        return nil
    }

    static let weightScale = ConnectionPlan(
        profile: "weight-scale",
        linkMode: .gatt,
        subscribe: [.weightMeasurement],
        readOnce: [.manufacturerNameString, .batteryLevel]
    )
    static let heartRate = ConnectionPlan(profile: "heart-rate", linkMode: .gatt, subscribe: [BluetoothUUID(0x2A37)])
}

/// Runs a transport and collects its events.
final class EventCollector: Sendable {
    private let state = Mutex<(events: [TransportEvent], error: (any Error)?, finished: Bool)>(([], nil, false))
    private let statuses = Mutex<[BlueZStatus]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)

    func start(_ transport: BlueZTransport) {
        let stream = transport.events()
        let t = Task {
            do {
                for try await event in stream { self.state.withLock { $0.events.append(event) } }
                self.state.withLock { $0.finished = true }
            } catch {
                self.state.withLock {
                    $0.error = error
                    $0.finished = true
                }
            }
        }
        task.withLock { $0 = t }
    }

    func record(_ status: BlueZStatus) { statuses.withLock { $0.append(status) } }

    var events: [TransportEvent] { state.withLock { $0.events } }
    var error: (any Error)? { state.withLock { $0.error } }
    var finished: Bool { state.withLock { $0.finished } }
    var statusLog: [BlueZStatus] { statuses.withLock { $0 } }

    func values(_ uuid: BluetoothUUID, delivery: CharacteristicValue.Delivery? = nil) -> [[UInt8]] {
        events.compactMap {
            guard case .value(let value) = $0.kind, value.characteristic == uuid else { return nil }
            if let delivery, value.delivery != delivery { return nil }
            return value.bytes
        }
    }

    func count(where predicate: (TransportEvent.Kind) -> Bool) -> Int { events.filter { predicate($0.kind) }.count }

    /// Whether at least `count` values of `uuid` are in and their device has disconnected since the last one.
    func hungUpAfterLastValue(_ uuid: BluetoothUUID, count: Int) -> Bool {
        let events = self.events
        let isValue: (TransportEvent) -> Bool = {
            if case .value(let value) = $0.kind { value.characteristic == uuid } else { false }
        }
        guard let last = events.lastIndex(where: isValue), events.count(where: isValue) >= count else { return false }
        return events[(last + 1)...].contains {
            if case .disconnected = $0.kind { $0.device == events[last].device } else { false }
        }
    }

    /// Asks the transport to stop gracefully and waits for its stream to finish.
    func shutDown(_ transport: BlueZTransport) async {
        transport.shutdown.request()
        _ = await FakeBlueZ.eventually(timeout: .seconds(180)) { self.finished }
    }

    /// Cancels the consumer (graceful shutdown of the transport) and waits for the stream to finish.
    func stop() async {
        task.withLock { $0?.cancel() }
        _ = await FakeBlueZ.eventually(timeout: .seconds(180)) { self.finished }
    }
}

extension BlueZConfiguration {
    /// Short timeouts for tests against the fake.
    static func testing(_ address: String) -> BlueZConfiguration {
        var configuration = BlueZConfiguration()
        configuration.bus = .address(address)
        configuration.reconnectBackoff = .milliseconds(300)
        configuration.servicesTimeout = .seconds(2)
        configuration.reappearTimeout = .seconds(3)
        configuration.backoffScale = 0.1
        return configuration
    }
}

extension Logger {
    static let test: Logger = {
        var logger = Logger(label: "test")
        logger.logLevel = ProcessInfo.processInfo.environment["TEST_LOG"] == "1" ? .trace : .critical
        return logger
    }()
}

extension FakeBlueZ {
    /// The shipped profiles (`Devices/`), as the daemon loads them.
    static let catalog = DeviceProfileLoader.load(directories: [packageRoot.appendingPathComponent("Devices")]).catalog

    /// A transport on this fake with the shipped profiles, its events collected (not yet waited for).
    func transport(configure: (inout BlueZConfiguration) -> Void = { _ in }) -> (BlueZTransport, EventCollector) {
        var configuration = BlueZConfiguration.testing(address)
        configure(&configuration)
        let collector = EventCollector()
        let transport = BlueZTransport(
            configuration: configuration,
            policy: Self.catalog,
            logger: .test,
            status: { collector.record($0) }
        )
        collector.start(transport)
        return (transport, collector)
    }

    /// Starts a transport on this fake with the shipped profiles and sessions at 1/20 of their timeouts, and waits
    /// until it is ready on hci0.
    func startTransport(memory: InMemorySessionMemory? = nil) async -> (BlueZTransport, EventCollector) {
        let (transport, collector) = transport {
            $0.sessionMemory = memory
            $0.sessionTimeScale = 0.05
        }
        #expect(await FakeBlueZ.eventually { collector.statusLog.contains(.ready(adapter: "hci0")) })
        return (transport, collector)
    }
}
