import BridgeCore
import BridgeFoundation
import DeviceSessions
import Foundation
import GATTDecoding
import Logging

/// Stage 9: the profile's session steps (RACP download, Current Time handshake, UDS consent), run by the pure
/// ``SessionMachine``; this file only carries out its actions over D-Bus and feeds it what happens.
extension BlueZClient {
    /// Loads the device's persisted variables and starts its session, if the profile has one.
    func startSession(_ address: String, plan: ConnectionPlan) async {
        guard !plan.session.isEmpty, linkUp(address) else { return }
        var variables: SessionVariables = [:]
        if let memory = configuration.sessionMemory {
            do {
                variables = try await memory.variables(device: address, profile: plan.profile)
            } catch {
                // A full download (first-contact behaviour) is harmless: the store drops what it has.
                logger.warning(
                    "cannot load the device's session variables; starting as on first contact",
                    metadata: ["device": "\(address)", "error": "\(error)"]
                )
            }
        }
        guard linkUp(address), sessions[address]?.machine == nil else { return }
        nextSessionToken += 1
        let token = nextSessionToken
        var machine = SessionMachine(
            script: plan.session,
            variables: variables,
            timeZone: configuration.timeZone,
            device: address
        )
        let actions = machine.start(now: configuration.wallClock())
        sessions[address]?.machine = machine
        sessions[address]?.token = token
        logger.info(
            "device session started",
            metadata: [
                "device": "\(address)", "profile": "\(plan.profile)",
                "variables": "\(variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })",
            ]
        )
        perform(address, token: token, actions)
    }

    /// Feeds the session of `address` (if it is still the one `token` names).
    func feedSession(_ address: String, token: Int, _ input: SessionInput) {
        guard var machine = sessions[address]?.machine, sessions[address]?.token == token else { return }
        let actions = machine.handle(input, now: configuration.wallClock())
        sessions[address]?.machine = machine
        perform(address, token: token, actions)
    }

    func perform(_ address: String, token: Int, _ actions: [SessionAction]) {
        for action in actions {
            switch action {
            case .write(let id, let uuid, let bytes, let withResponse):
                spawn { await $0.sessionWrite(address, token: token, id: id, uuid, bytes, withResponse: withResponse) }
            case .read(let id, let uuid):
                spawn { await $0.sessionRead(address, token: token, id: id, uuid) }
            case .readDescriptors(let id, let characteristic, let descriptor):
                spawn {
                    await $0.sessionReadDescriptors(address, token: token, id: id, characteristic, descriptor)
                }
            case .subscribe(let id, let uuid):
                spawn { await $0.sessionSubscribe(address, token: token, id: id, uuid) }
            case .startTimer(let id, let seconds):
                let scaled = max(0, seconds * configuration.sessionTimeScale)
                let timer = spawn { client in
                    do { try await client.clock.sleep(for: .seconds(scaled)) } catch { return }
                    client.feedSession(address, token: token, .timer(id))
                }
                sessions[address]?.timers.append(timer)
            case .finished(let persist):
                let profile = sessions[address]?.plan.profile ?? "?"
                logger.info(
                    "device session completed",
                    metadata: [
                        "device": "\(address)", "profile": "\(profile)",
                        "saved":
                            "\(persist.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.map(\.description) ?? "-")" })",
                    ]
                )
                guard let memory = configuration.sessionMemory, !persist.isEmpty else { continue }
                spawn { client in
                    do {
                        try await memory.save(persist, device: address, profile: profile)
                    } catch {
                        client.logger.error(
                            "cannot save the device's session variables; the next session repeats this one",
                            metadata: ["device": "\(address)", "error": "\(error)"]
                        )
                    }
                }
            case .progress(let done, let total):
                // Every record at debug; at info the first, every tenth of the total, and the last.
                let step = max(1, total / 10)
                let level: Logger.Level = done == 1 || done >= total || done % step == 0 ? .info : .debug
                logger.log(
                    level: level,
                    "downloading \(done) of \(total) records",
                    metadata: ["device": "\(address)", "profile": "\(sessions[address]?.plan.profile ?? "?")"]
                )
            case .download(let download):
                // Before the `written` event of the request (its write is spawned above): the pipeline counts the
                // records that answer it either way.
                emit(address, .download(download))
            case .failed(let reason):
                logger.warning("device session failed", metadata: ["device": "\(address)", "reason": "\(reason)"])
                emit(address, .error(message: "device session failed: \(reason)"))
                // A device that does not answer is let go; it is tried again after the back-off.
                spawn { await $0.disconnect(address, reason: "local") }
            }
        }
    }

    /// The D-Bus object of characteristic `uuid` of the device, if the session is still this one.
    func sessionCharacteristic(_ address: String, token: Int, _ uuid: BluetoothUUID) -> String?? {
        guard let session = sessions[address], session.token == token else { return .none }
        return .some(mirror.characteristics(of: session.path)[uuid.uuidString])
    }

    func sessionWrite(
        _ address: String,
        token: Int,
        id: Int,
        _ uuid: BluetoothUUID,
        _ bytes: [UInt8],
        withResponse: Bool
    ) async {
        guard case .some(let found) = sessionCharacteristic(address, token: token, uuid) else { return }
        guard let path = found else {
            feedSession(address, token: token, .failed(action: id, message: "the device has no characteristic \(uuid)"))
            return
        }
        logger.debug("session write", metadata: ["device": "\(address)", "characteristic": "\(uuid)"])
        // Emitted first: the device's answers may arrive before the write's reply, and a recording must show
        // the write before them.
        emit(address, .written(CharacteristicWrite(characteristic: uuid, bytes: bytes, withResponse: withResponse)))
        do {
            _ = try await call(
                path,
                BlueZ.gattCharacteristic,
                "WriteValue",
                [.bytes(bytes), .properties(["type": .string(withResponse ? "request" : "command")])]
            )
            feedSession(address, token: token, .completed(action: id))
        } catch {
            feedSession(address, token: token, .failed(action: id, message: error.description))
        }
    }

    func sessionRead(_ address: String, token: Int, id: Int, _ uuid: BluetoothUUID) async {
        guard case .some(let found) = sessionCharacteristic(address, token: token, uuid) else { return }
        guard let path = found else {
            feedSession(address, token: token, .failed(action: id, message: "the device has no characteristic \(uuid)"))
            return
        }
        do {
            let reply = try await call(path, BlueZ.gattCharacteristic, "ReadValue", [.properties([:])])
            guard let bytes = reply.arguments.first?.bytes, sessions[address]?.token == token else { return }
            let value = CharacteristicValue(characteristic: uuid, bytes: bytes, delivery: .read)
            emit(address, .value(value))
            feedSession(address, token: token, .value(value))
            feedSession(address, token: token, .completed(action: id))
        } catch {
            feedSession(address, token: token, .failed(action: id, message: error.description))
        }
    }

    /// Reads the descriptors `descriptor` of `characteristic` for the session: each value is logged (info) and fed
    /// to the session as a read of the descriptor's UUID. Not a pipeline event: a descriptor is the device's
    /// configuration, not a measurement, and recordings hold characteristic traffic only.
    func sessionReadDescriptors(
        _ address: String,
        token: Int,
        id: Int,
        _ characteristic: BluetoothUUID,
        _ descriptor: BluetoothUUID
    ) async {
        guard case .some(let found) = sessionCharacteristic(address, token: token, characteristic) else { return }
        guard let path = found else {
            feedSession(
                address,
                token: token,
                .failed(action: id, message: "the device has no characteristic \(characteristic)")
            )
            return
        }
        do {
            let values = try await readDescriptors(descriptor, of: path)
            guard sessions[address]?.token == token else { return }
            for bytes in values {
                logger.info(
                    "descriptor read",
                    metadata: [
                        "device": "\(address)", "characteristic": "\(characteristic)", "descriptor": "\(descriptor)",
                        "value": "\(Hex.string(bytes))",
                    ]
                )
                feedSession(
                    address,
                    token: token,
                    .value(CharacteristicValue(characteristic: descriptor, bytes: bytes, delivery: .read))
                )
            }
            feedSession(address, token: token, .completed(action: id))
        } catch {
            logger.info(
                "descriptor not read",
                metadata: ["device": "\(address)", "characteristic": "\(characteristic)", "error": "\(error)"]
            )
            feedSession(address, token: token, .failed(action: id, message: error.description))
        }
    }

    /// The values of every descriptor `uuid` of the characteristic at `characteristicPath`, in handle order
    /// (`GattDescriptor1.ReadValue`; bluetoothd discovers descriptors with their characteristic and exports them
    /// under its object path).
    /// - Throws: ``TransportError`` (`descriptorUnavailable`) when the characteristic has none, or a read fails
    ///   (the D-Bus error as its cause).
    func readDescriptors(
        _ uuid: BluetoothUUID,
        of characteristicPath: String
    ) async throws(TransportError)
        -> [[UInt8]]
    {
        let paths = mirror.descriptors(uuid.uuidString, of: characteristicPath)
        guard !paths.isEmpty else {
            throw TransportError(.descriptorUnavailable, "\(characteristicPath) has no descriptor \(uuid)")
        }
        var values: [[UInt8]] = []
        for path in paths {
            do {
                let reply = try await call(path, BlueZ.gattDescriptor, "ReadValue", [.properties([:])])
                values.append(reply.arguments.first?.bytes ?? [])
            } catch {
                throw TransportError(.descriptorUnavailable, "reading descriptor \(path) failed", cause: error)
            }
        }
        return values
    }

    func sessionSubscribe(_ address: String, token: Int, id: Int, _ uuid: BluetoothUUID) async {
        guard case .some(let found) = sessionCharacteristic(address, token: token, uuid) else { return }
        guard let path = found, let properties = mirror.properties(path, BlueZ.gattCharacteristic) else {
            feedSession(address, token: token, .failed(action: id, message: "the device has no characteristic \(uuid)"))
            return
        }
        let flags = properties["Flags"]?.stringArray ?? []
        let delivery: CharacteristicValue.Delivery =
            flags.contains("indicate") && !flags.contains("notify") ? .indication : .notification
        sessions[address]?.watched[path] = (uuid, delivery)
        do {
            _ = try await call(path, BlueZ.gattCharacteristic, "StartNotify")
            feedSession(address, token: token, .completed(action: id))
        } catch {
            if error.name == .inProgress {
                feedSession(address, token: token, .completed(action: id))
            } else {
                feedSession(address, token: token, .failed(action: id, message: error.description))
            }
        }
    }
}
