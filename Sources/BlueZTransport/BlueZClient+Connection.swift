import BridgeCore
import Foundation
import GATTDecoding
import Logging

extension BlueZClient {
    enum AttemptOutcome {
        case established
        case failed(ErrorClass, String)
    }

    // MARK: - Queue: one connection attempt at a time per adapter

    func considerConnecting(_ address: String, plan: ConnectionPlan) {
        guard sessions[address] == nil, !connectQueue.contains(where: { $0.address == address }), !stopping else {
            return
        }
        if let until = cooldownUntil[address], clock.now < until { return }
        connectQueue.append((address, plan))
        pumpConnections()
    }

    func pumpConnections() {
        guard !connecting, !stopping, bluezPresent, adapterPath != nil, !connectQueue.isEmpty else { return }
        let next = connectQueue.removeFirst()
        connecting = true
        spawn { await $0.connect(next.address, plan: next.plan) }
    }

    /// Connects with retries by error class, then lets the session run until the device disconnects.
    func connect(_ address: String, plan: ConnectionPlan) async {
        var attempt = 0
        defer {
            // An established session released the queue itself (attemptConnection); a failed one does it here.
            if sessions[address]?.established != true {
                sessions[address] = nil
                cooldownUntil[address] = clock.now + configuration.reconnectBackoff * configuration.backoffScale
                connecting = false
                spawn { await $0.resumeDiscoveryAfterConnect() }
            }
        }
        while !Task.isCancelled, !stopping {
            attempt += 1
            let outcome = await attemptConnection(address, plan: plan)
            switch outcome {
            case .established:
                logger.info(
                    "device session established",
                    metadata: ["device": "\(address)", "profile": "\(plan.profile)"]
                )
                return
            case .failed(let errorClass, let reason):
                let backoff = Backoff.for(errorClass)
                logger.warning(
                    "connection attempt failed",
                    metadata: [
                        "device": "\(address)", "attempt": "\(attempt)", "class": "\(errorClass.rawValue)",
                        "reason": "\(reason)",
                    ]
                )
                guard errorClass.isRetryable, attempt < backoff.attempts, bluezPresent else {
                    emit(address, .error(message: "connection failed after \(attempt) attempt(s): \(reason)"))
                    return
                }
                await sleep(backoff.delay(beforeRetry: attempt))
            }
        }
    }

    func resumeDiscoveryAfterConnect() async {
        discoveryPausedForConnect = false
        if !discovering, adapterPath != nil, bluezPresent, !stopping {
            do { try await startDiscovery() } catch { fail(error) }
            inputContinuation.yield(.wake)
        }
        pumpConnections()
    }

    func attemptConnection(_ address: String, plan: ConnectionPlan) async -> AttemptOutcome {
        guard let adapterPath else { return .failed(.needsReset, "no adapter") }
        // Re-resolve the device object every attempt: paths are not cached across connections.
        var path = mirror.devicePath(address: address, adapter: adapterPath)
        if path == nil {
            let back = await wait(timeout: configuration.reappearTimeout) {
                self.mirror.devicePath(address: address, adapter: adapterPath) != nil
            }
            path = back ? mirror.devicePath(address: address, adapter: adapterPath) : nil
        }
        guard let path else { return .failed(.objectMissing, "device object \(address) is gone") }
        sessions[address] = DeviceSession(address: address, path: path, plan: plan)

        // Stop discovery before Connect (le-connection-abort-by-local otherwise).
        discoveryPausedForConnect = true
        await stopDiscovery()
        do {
            _ = try await call(path, BlueZ.device, "Connect", timeout: configuration.connectTimeout)
        } catch {
            if error.name != .alreadyConnected {
                sessions[address] = nil
                return .failed(ErrorClass(error), error.description)
            }
        }
        guard sessions[address] != nil else { return .failed(.transient, "disconnected during Connect") }
        sessions[address]?.connectedEmitted = true
        emit(address, .connected)

        // ServicesResolved races a disconnect and the object vanishing.
        let settled = await wait(timeout: configuration.servicesTimeout) {
            let device = self.mirror.properties(path, BlueZ.device)
            return device == nil || device?["Connected"]?.bool == false || device?["ServicesResolved"]?.bool == true
        }
        let device = mirror.properties(path, BlueZ.device)
        if device == nil || sessions[address] == nil {
            endSession(address: address, reason: "vanished")
            return .failed(.objectMissing, "device object vanished while resolving services")
        }
        if device?["Connected"]?.bool == false {
            endSession(address: address, reason: "remote")
            return .failed(.transient, "disconnected before services were resolved")
        }
        if !settled {
            await disconnect(address, reason: "timeout")
            return .failed(.timeout, "services not resolved within \(configuration.servicesTimeout)")
        }

        // ServicesResolved can come before the GATT objects are exported: wait for the ones the plan needs.
        let wanted = Set(plan.subscribe.map(\.uuidString))
        let exported = await wait(timeout: configuration.servicesTimeout) {
            let present = Set(self.mirror.characteristics(of: path).keys)
            return wanted.isSubset(of: present)
                || self.mirror.properties(path, BlueZ.device)?["Connected"]?.bool != true
        }
        guard sessions[address] != nil, mirror.properties(path, BlueZ.device)?["Connected"]?.bool == true else {
            endSession(address: address, reason: "remote")
            return .failed(.transient, "disconnected while waiting for characteristics")
        }
        let characteristics = mirror.characteristics(of: path)
        if !exported {
            let missing = wanted.subtracting(characteristics.keys).sorted()
            if missing.count == wanted.count, !wanted.isEmpty {
                await disconnect(address, reason: "timeout")
                return .failed(.timeout, "characteristics \(missing.joined(separator: ", ")) never appeared")
            }
            logger.warning(
                "some characteristics are missing",
                metadata: ["device": "\(address)", "missing": "\(missing)"]
            )
        }
        var services: [BluetoothUUID: [BluetoothUUID]] = [:]
        for (service, chars) in mirror.services(of: path) {
            guard let uuid = BluetoothUUID(service) else { continue }
            services[uuid] = chars.compactMap(BluetoothUUID.init).sorted()
        }
        emit(address, .servicesDiscovered(services))

        if plan.requiresPairing, device?["Paired"]?.bool != true, device?["Bonded"]?.bool != true {
            do {
                try await pair(path, address: address)
            } catch {
                await disconnect(address, reason: "local")
                return .failed(.configuration, "pairing failed: \(error)")
            }
        }

        // Subscribe: the PropertiesChanged match is in place since start; mark the path watched before
        // StartNotify so a notification right after it is kept. BlueZ keeps "notifying" across reconnects
        // while the peripheral forgot its CCCD: StopNotify first in that case.
        for uuid in plan.subscribe {
            guard let characteristic = characteristics[uuid.uuidString] else { continue }
            let properties = mirror.properties(characteristic, BlueZ.gattCharacteristic) ?? [:]
            let flags = properties["Flags"]?.stringArray ?? []
            let delivery: CharacteristicValue.Delivery =
                flags.contains("indicate") && !flags.contains("notify") ? .indication : .notification
            sessions[address]?.watched[characteristic] = (uuid, delivery)
            if properties["Notifying"]?.bool == true {
                _ = try? await call(characteristic, BlueZ.gattCharacteristic, "StopNotify")
            }
            do {
                _ = try await call(characteristic, BlueZ.gattCharacteristic, "StartNotify")
            } catch {
                sessions[address]?.watched[characteristic] = nil
                let errorClass = ErrorClass(error)
                if errorClass == .objectMissing || sessions[address] == nil {
                    endSession(address: address, reason: "vanished")
                    return .failed(.objectMissing, "StartNotify \(uuid): \(error)")
                }
                logger.warning(
                    "StartNotify failed",
                    metadata: ["device": "\(address)", "characteristic": "\(uuid)", "error": "\(error)"]
                )
            }
        }
        guard sessions[address] != nil else { return .failed(.transient, "disconnected while subscribing") }
        sessions[address]?.established = true
        // The next device may connect now; this one keeps streaming.
        connecting = false
        spawn { await $0.resumeDiscoveryAfterConnect() }

        for uuid in plan.readOnce {
            guard let characteristic = characteristics[uuid.uuidString], sessions[address] != nil else { continue }
            do {
                let reply = try await call(characteristic, BlueZ.gattCharacteristic, "ReadValue", [.properties([:])])
                if let bytes = reply.arguments.first?.bytes, sessions[address] != nil {
                    emit(address, .value(CharacteristicValue(characteristic: uuid, bytes: bytes, delivery: .read)))
                }
            } catch {
                logger.warning(
                    "ReadValue failed",
                    metadata: ["device": "\(address)", "characteristic": "\(uuid)", "error": "\(error)"]
                )
            }
        }
        if plan.setsDeviceClock, configuration.setDeviceClock,
            let characteristic = characteristics[CurrentTime.uuid.uuidString]
        {
            let bytes = CurrentTime.bytes(for: Date(), in: configuration.timeZone)
            do {
                _ = try await call(
                    characteristic,
                    BlueZ.gattCharacteristic,
                    "WriteValue",
                    [.bytes(bytes), .properties(["type": .string("request")])]
                )
            } catch {
                logger.warning("writing Current Time failed", metadata: ["device": "\(address)", "error": "\(error)"])
            }
        }
        return .established
    }

    func disconnect(_ address: String, reason: String) async {
        guard let session = sessions[address] else { return }
        _ = try? await call(session.path, BlueZ.device, "Disconnect", timeout: .seconds(5))
        endSession(address: address, reason: reason)
    }

    func endSession(devicePath: String, reason: String) {
        guard let address = sessions.first(where: { $0.value.path == devicePath })?.key else { return }
        endSession(address: address, reason: reason)
    }

    /// Forgets a session (never `RemoveDevice`: that would delete a bond) and emits `disconnected`.
    func endSession(address: String, reason: String) {
        guard let session = sessions.removeValue(forKey: address) else { return }
        if session.connectedEmitted { emit(address, .disconnected(reason: reason)) }
        if session.established {
            cooldownUntil[address] = clock.now + configuration.reconnectBackoff * configuration.backoffScale
            logger.info("device session ended", metadata: ["device": "\(address)", "reason": "\(reason)"])
        }
    }

    // MARK: - Pairing

    func pair(_ path: String, address: String) async throws(TransportError) {
        let agent = try await ensureAgent()
        agent.allow(path)
        defer { agent.forbid(path) }
        logger.info("pairing", metadata: ["device": "\(address)"])
        do {
            _ = try await call(path, BlueZ.device, "Pair", timeout: .seconds(60))
        } catch {
            if error.name == .alreadyExists { return }
            throw TransportError(.pairingFailed, "pairing with \(address) failed", cause: error)
        }
    }

    func ensureAgent() async throws(TransportError) -> PairingAgent {
        if let agent { return agent }
        guard let bus else { throw TransportError(.busDisconnected, "no bus connection") }
        let agent = PairingAgent(passkey: configuration.passkey, logger: logger)
        do {
            try await agent.export(on: bus)
            _ = try await call(
                BlueZ.root,
                BlueZ.agentManager,
                "RegisterAgent",
                [.objectPath(agent.path), .string(agent.capability)]
            )
        } catch {
            throw TransportError(.pairingFailed, "cannot register the pairing agent", cause: error)
        }
        self.agent = agent
        return agent
    }
}
