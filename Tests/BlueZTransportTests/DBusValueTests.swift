import Foundation
import Logging
import TestSupport
import Testing

@testable import BlueZTransport

/// Marshalling through real sd-bus messages: an object exported on one connection echoes what another sends.
extension FakeBlueZSuites {
    @Suite
    struct DBusValueTests {
        static let samples: [DBusValue] = [
            .byte(0xFE), .boolean(true), .int16(-5), .uint16(0xFFFF), .int32(-70_000), .uint32(4_000_000_000),
            .int64(-1 << 40), .uint64(1 << 63), .double(98.6), .string("Grüße"), .objectPath("/org/bluez/hci0"),
            .signature("a{sv}"), .bytes([0x0E, 0xA4, 0x38]), .bytes([]),
            .strings(["181d", "180a"]),
            .properties(["Transport": .string("le"), "DuplicateData": .boolean(true), "RSSI": .int16(-61)]),
            .dictionary(key: "q", value: "v", [.init(.uint16(0x0157), .variant(.bytes([1, 2])))]),
            .structure([.string("a"), .uint32(7), .bytes([9])]),
            .array(element: "(ss)", [.structure([.string("x"), .string("y")])]),
        ]

        @Test func everyTypeRoundTripsThroughSdBus() async throws {
            let fake = try await FakeBlueZ(startBlueZ: false)
            defer { fake.stop() }
            let server = try DBusConnection.open(.address(fake.address))
            defer { server.close() }
            _ = try await server.exportObject(at: "/echo") { message in .values(message.arguments) }
            let reply = try await fake.control.call(
                DBusMethodCall(
                    destination: server.uniqueName,
                    path: "/echo",
                    interface: "test.Echo",
                    member: "Echo",
                    arguments: Self.samples
                )
            )
            #expect(reply.arguments == Self.samples)
        }

        @Test func errorRepliesCarryTheirNameAndMessage() async throws {
            let fake = try await FakeBlueZ(startBlueZ: false)
            defer { fake.stop() }
            let server = try DBusConnection.open(.address(fake.address))
            defer { server.close() }
            _ = try await server.exportObject(at: "/fail") { _ in
                .error(name: .inProgress, message: "Operation already in progress")
            }
            let error = await #expect(throws: DBusError.self) {
                try await fake.control.call(
                    DBusMethodCall(destination: server.uniqueName, path: "/fail", interface: "x.Y", member: "Z")
                )
            }
            #expect(error?.name == .inProgress)
            #expect(error?.message == "Operation already in progress")
            #expect(error.map(ErrorClass.init) == .contention)
        }

        @Test func callsFailCleanlyAfterClose() async throws {
            let fake = try await FakeBlueZ(startBlueZ: false)
            defer { fake.stop() }
            let connection = try DBusConnection.open(.address(fake.address))
            connection.close()
            try await waitUntil("the connection closed") { connection.isClosed }
            await #expect(throws: DBusError.self) {
                try await connection.call(FakeBlueZ.bus("GetId", []))
            }
        }
    }
}

@Suite struct ErrorClassTests {
    @Test(arguments: [
        ("org.bluez.Error.InProgress", "", ErrorClass.contention),
        ("org.bluez.Error.Failed", "le-connection-abort-by-local", .transient),
        ("org.bluez.Error.Failed", "Software caused connection abort", .transient),
        ("org.bluez.Error.Failed", "Blocked through rfkill", .configuration),
        ("org.bluez.Error.Failed", "Adapter not found", .needsReset),
        ("org.bluez.Error.NotReady", "Resource Not Ready", .needsReset),
        (
            "org.freedesktop.DBus.Error.UnknownObject",
            "Method \"Connect\" with signature \"\" on interface \"org.bluez.Device1\" doesn't exist", .objectMissing
        ),
        ("org.freedesktop.DBus.Error.NoReply", "Method call timed out", .timeout),
        ("org.bluez.Error.AuthenticationFailed", "", .fatal),
    ])
    func classifiesBlueZErrors(name: String, message: String, expected: ErrorClass) {
        #expect(ErrorClass(DBusError(name: DBusErrorName(name), message: message, operation: "test")) == expected)
    }

    @Test func backoffGrowsToItsCeiling() {
        let backoff = Backoff.for(.transient)
        #expect(backoff.delay(beforeRetry: 1) == .milliseconds(250))
        #expect(backoff.delay(beforeRetry: 2) == .milliseconds(500))
        #expect(backoff.delay(beforeRetry: 5) == .seconds(2))
        #expect(backoff.attempts == 4)
        #expect(!ErrorClass.configuration.isRetryable)
    }
}

@Suite struct PairingAgentTests {
    let agent = PairingAgent(passkey: 123_456, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
    let device = "/org/bluez/hci0/dev_02_00_00_00_00_07"

    func call(_ member: String, _ arguments: [DBusValue]) -> DBusMethodReply {
        agent.answer(
            DBusMessage(
                kind: .methodCall,
                sequence: 1,
                path: agent.path,
                interface: "org.bluez.Agent1",
                member: member,
                arguments: arguments
            )
        )
    }

    @Test func answersOnlyForTheDeviceBeingPaired() {
        #expect(
            call("RequestPasskey", [.objectPath(device)])
                == .error(name: .rejected, message: "CareBridge is not pairing \(device)")
        )
        agent.allow(device)
        #expect(call("RequestPasskey", [.objectPath(device)]) == .values([.uint32(123_456)]))
        #expect(call("RequestPinCode", [.objectPath(device)]) == .values([.string("123456")]))
        #expect(call("RequestConfirmation", [.objectPath(device), .uint32(123_456)]) == .values([]))
        if case .error(let name, _) = call("RequestConfirmation", [.objectPath(device), .uint32(654_321)]) {
            #expect(name == .rejected)
        } else {
            Issue.record("a wrong confirmation code must be rejected")
        }
        agent.forbid(device)
        if case .error(let name, _) = call(
            "AuthorizeService",
            [.objectPath(device), .string("0000180d-0000-1000-8000-00805f9b34fb")]
        ) {
            #expect(name == .rejected)
        } else {
            Issue.record("no longer pairing: must reject")
        }
    }

    @Test func offersJustWorksWithoutAPasskey() {
        let justWorks = PairingAgent(passkey: nil, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        #expect(justWorks.capability == "NoInputNoOutput")
        #expect(agent.capability == "KeyboardOnly")
    }
}
