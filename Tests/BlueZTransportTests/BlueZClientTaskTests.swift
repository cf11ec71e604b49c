import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import Logging
import Synchronization
import TestSupport
import Testing

@testable import BlueZTransport

/// The client's own tasks over a daemon's lifetime: what ended leaves the task list, and a wait that ends before
/// its timeout takes its timer with it, so the list holds only what still runs however many connections and
/// messages come and go.
@Suite struct BlueZClientTaskTests {
    static func client(clock: ManualClock) -> BlueZClient {
        var configuration = BlueZConfiguration()
        configuration.clock = clock
        let (_, output) = AsyncThrowingStream.makeStream(of: TransportEvent.self, throwing: (any Error).self)
        return BlueZClient(configuration: configuration, policy: nil, logger: .test, output: output) { _ in }
    }

    /// bluetoothd appearing on the bus (`present`) or leaving it.
    static func ownerChanged(_ round: Int, present: Bool) -> DBusMessage {
        let owner = ":1.\(round)"
        return DBusMessage(
            kind: .signal,
            sequence: UInt64(round),
            path: BlueZ.busPath,
            interface: BlueZ.busService,
            member: "NameOwnerChanged",
            arguments: [.string(BlueZ.service), .string(present ? "" : owner), .string(present ? owner : "")]
        )
    }

    /// The seam under every connection: each message that needs D-Bus calls spawns a task (here a re-attach, which
    /// fails at once without a bus), and connection stages wait on the mirror with a timeout. A full connection
    /// through the fake bluetoothd costs several D-Bus round trips to Python; 5,000 of them would take minutes on
    /// a loaded machine, so this drives the same `spawn`, `wait` and `apply` directly, and
    /// `BlueZTransportTests.theTaskListStaysBoundedOverManyConnections` runs real connections through the fake.
    @Test func finishedTasksAndSatisfiedWaitsLeaveNothingBehindOverThousandsOfMessages() async throws {
        let clock = ManualClock()
        let client = Self.client(clock: clock)
        var largest = 0
        for round in 1...5_000 {
            // A wait for bluetoothd, satisfied by the next message long before its 15 s (which never pass here).
            await client.spawn { client in _ = await client.wait(timeout: .seconds(15)) { client.bluezPresent } }
            await client.apply(.message(Self.ownerChanged(round, present: true)))
            await client.apply(.message(Self.ownerChanged(round, present: false)))
            largest = max(largest, await client.bookkeeping.tasks)
        }
        await client.apply(.message(Self.ownerChanged(5_001, present: true)))  // the last wait may still wait
        try await waitUntil("every task ended and every wait's timer stopped") {
            let bookkeeping = await client.bookkeeping
            return bookkeeping.tasks == 0 && bookkeeping.waits == 0 && clock.sleeperCount == 0
        }
        #expect(largest <= 20, "the task list held \(largest) tasks at once")
        #expect(await client.bookkeeping.spawned >= 10_000, "every round spawned a wait and a re-attach")
    }

    @Test func aWaitThatTimesOutEndsWithItsCheckAndLeavesNoTimer() async throws {
        let clock = ManualClock()
        let client = Self.client(clock: clock)
        let result = Mutex<Bool?>(nil)
        await client.spawn { client in
            let held = await client.wait(timeout: .seconds(15)) { client.bluezPresent }
            result.withLock { $0 = held }
        }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(14))
        #expect(result.withLock { $0 } == nil)
        clock.advance(by: .seconds(1))
        try await waitUntil("the wait ended") { result.withLock { $0 } != nil }
        #expect(result.withLock { $0 } == false)
        try await waitUntil("its task ended") { await client.bookkeeping.tasks == 0 }
        #expect(clock.sleeperCount == 0)
    }
}

extension FakeBlueZSuites {
    /// Real connections through the fake bluetoothd: connect, subscribe, read, the link dropped, again.
    @Suite
    struct BlueZClientConnectionTaskTests {
        static let cycles = 100

        @Test func theTaskListStaysBoundedOverManyConnections() async throws {
            let scale = BlueZTransportTests.scale
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            try await fake.addPeripheral(scale, BlueZTransportTests.scaleSpec)
            let collector = EventCollector()
            let transport = BlueZTransport(
                configuration: .testing(fake.address),
                policy: TestPolicy(gatt: [.weightScaleService: TestPolicy.weightScale]),
                logger: .test,
                status: { collector.record($0) }
            )
            collector.start(transport)
            try await waitUntil("the adapter is ready") { collector.statusLog.contains(.ready(adapter: "hci0")) }
            let client = try #require(transport.scanner.client.withLock { $0 })
            func count(_ kind: TransportEvent.Kind) -> Int { collector.count { $0 == kind } }
            var largest = 0
            let started = ContinuousClock.now
            for cycle in 1...Self.cycles {
                // The scale advertises until the bridge connects (after the back-off of the last session).
                try await waitUntil("connection \(cycle)") {
                    if count(.connected) >= cycle, collector.values(.batteryLevel, delivery: .read).count >= cycle {
                        return true
                    }
                    try? await fake.advertise(scale, BlueZTransportTests.scaleAdvert)
                    return false
                }
                try await fake.mockCall("DropLink", [.string(scale)])
                try await waitUntil("disconnection \(cycle)") {
                    count(.disconnected(reason: "remote")) >= cycle
                }
                largest = max(largest, await client.bookkeeping.tasks)
            }
            let elapsed = ContinuousClock.now - started
            try await waitUntil("the last connection's tasks ended") { await client.bookkeeping.tasks == 0 }
            #expect(largest <= 20, "the task list held \(largest) tasks after a disconnection")
            #expect(collector.error == nil)
            print("\(Self.cycles) connections through the fake bluetoothd in \(elapsed)")
            await collector.shutDown(transport)
        }
    }
}

extension BlueZClient {
    /// How many spawned tasks run, how many waits wait, and how many tasks were ever spawned.
    var bookkeeping: (tasks: Int, waits: Int, spawned: Int) { (tasks.count, waiters.count, nextTask) }
}
