import BridgeCore
import BridgeFoundation
import DeviceSessions
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
        if let until = cooldownUntil[address], elapsed() < until { return }
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
                cooldownUntil[address] = elapsed() + configuration.reconnectBackoff * configuration.backoffScale
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

    /// Why a connection attempt stopped, and how to react (retry by class or give up).
    struct AttemptFailure: Error {
        var errorClass: ErrorClass
        var reason: String

        init(_ errorClass: ErrorClass, _ reason: String) {
            self.errorClass = errorClass
            self.reason = reason
        }
    }

    /// One connection attempt, in the order bluez-dbus.md §2 gives: find the device object, connect, wait for
    /// the services, wait for the characteristics the plan needs, bond if the profile requires it, subscribe
    /// (the session is established from here and the queue moves on), then read what is read once and set the
    /// device clock.
    func attemptConnection(_ address: String, plan: ConnectionPlan) async -> AttemptOutcome {
        do throws(AttemptFailure) {
            let path = try await resolveDevice(address)
            sessions[address] = DeviceSession(address: address, path: path, plan: plan)
            try await connectLink(address, path: path)
            try await awaitServicesResolved(address, path: path)
            let characteristics = try await awaitCharacteristics(address, path: path, plan: plan)
            reportServices(address, path: path)
            try await bondIfRequired(address, path: path, plan: plan)
            try await subscribe(address, to: characteristics, plan: plan)
            markEstablished(address)
            await readOnce(address, from: characteristics, plan: plan)
            await setDeviceClock(address, from: characteristics, plan: plan)
            await startSession(address, plan: plan)
            return .established
        } catch {
            return .failed(error.errorClass, error.reason)
        }
    }

    /// The link is up as far as we know: the session exists (a `Connected = false` signal, the device object
    /// vanishing or bluetoothd leaving ends it).
    func linkUp(_ address: String) -> Bool {
        sessions[address] != nil
    }

    /// Stage 1: the device object, re-resolved every attempt (paths are not cached across connections); waits
    /// a while for it to come back when bluetoothd dropped it.
    func resolveDevice(_ address: String) async throws(AttemptFailure) -> String {
        guard let adapterPath else { throw AttemptFailure(.needsReset, "no adapter") }
        if let path = mirror.devicePath(address: address, adapter: adapterPath) { return path }
        _ = await wait(timeout: configuration.reappearTimeout) {
            self.mirror.devicePath(address: address, adapter: adapterPath) != nil
        }
        guard let path = mirror.devicePath(address: address, adapter: adapterPath) else {
            throw AttemptFailure(.objectMissing, "device object \(address) is gone")
        }
        return path
    }

    /// Stage 2: stop discovery (le-connection-abort-by-local otherwise), then `Device1.Connect`.
    ///
    /// A successful reply means the link is up. bluetoothd answers before it emits the device's property
    /// changes (its D-Bus layer batches them in an idle callback), and BlueZ 5.66 may not emit
    /// `Connected = true` at all for a link it initiated (when the ATT channel is up before the kernel's
    /// connected event, the state is already "connected" and no change is signalled). So the mirror's
    /// `Connected`, still `false` from discovery, says nothing here; only a `Connected = false` signal from
    /// now on means the link went down.
    func connectLink(_ address: String, path: String) async throws(AttemptFailure) {
        discoveryPausedForConnect = true
        await stopDiscovery()
        do {
            _ = try await call(path, BlueZ.device, "Connect", timeout: configuration.connectTimeout)
        } catch {
            if error.name != .alreadyConnected {
                sessions[address] = nil
                throw AttemptFailure(ErrorClass(error), error.description)
            }
        }
        guard linkUp(address) else { throw AttemptFailure(.transient, "disconnected during Connect") }
        sessions[address]?.connectedEmitted = true
        emit(address, .connected)
        for value in sessions[address]?.early ?? [] { emit(address, .value(value)) }
        sessions[address]?.early = []
    }

    /// Stage 3: `ServicesResolved`, racing a disconnect and the object vanishing.
    func awaitServicesResolved(_ address: String, path: String) async throws(AttemptFailure) {
        let settled = await wait(timeout: configuration.servicesTimeout) {
            !self.linkUp(address) || self.mirror.properties(path, BlueZ.device)?["ServicesResolved"]?.bool == true
        }
        if mirror.properties(path, BlueZ.device) == nil {
            endSession(address: address, reason: "vanished")
            throw AttemptFailure(.objectMissing, "device object vanished while resolving services")
        }
        guard linkUp(address) else {
            throw AttemptFailure(.transient, "disconnected before services were resolved")
        }
        if !settled {
            await disconnect(address, reason: "timeout")
            throw AttemptFailure(.timeout, "services not resolved within \(configuration.servicesTimeout)")
        }
    }

    /// Stage 4: the characteristics, by UUID. `ServicesResolved` can come before the GATT objects' signals:
    /// bluetoothd registers them first but announces them in later idle callbacks, one object at a time. Its
    /// `GetManagedObjects` already lists them, so ask once which of the characteristics the plan uses exist and
    /// wait until the mirror has those. When it lists none (objects exported later still), wait for the ones to
    /// subscribe to.
    func awaitCharacteristics(
        _ address: String,
        path: String,
        plan: ConnectionPlan
    ) async throws(AttemptFailure) -> [String: String] {
        let required = Set(plan.subscribe.map(\.uuidString))
        var wanted = required.union(plan.readOnce.map(\.uuidString))
        wanted.formUnion(plan.session.usedCharacteristics.map(\.uuidString))
        if plan.setsDeviceClock, configuration.setDeviceClock { wanted.insert(CurrentTime.uuid.uuidString) }
        let exported = await exportedCharacteristics(under: path)
        let expected = exported.isEmpty ? required : wanted.intersection(exported)
        let present = await wait(timeout: configuration.servicesTimeout) {
            expected.isSubset(of: self.mirror.characteristics(of: path).keys) || !self.linkUp(address)
        }
        guard linkUp(address) else {
            throw AttemptFailure(.transient, "disconnected while waiting for characteristics")
        }
        let characteristics = mirror.characteristics(of: path)
        let missing = required.subtracting(characteristics.keys).sorted()
        if !required.isEmpty, missing.count == required.count {
            await disconnect(address, reason: "timeout")
            throw AttemptFailure(.timeout, "characteristics \(missing.joined(separator: ", ")) never appeared")
        }
        if !present || !missing.isEmpty {
            logger.warning(
                "some characteristics are missing",
                metadata: ["device": "\(address)", "missing": "\(wanted.subtracting(characteristics.keys).sorted())"]
            )
        }
        return characteristics
    }

    /// Characteristic UUIDs bluetoothd has registered under a device right now (lower-case), from
    /// `GetManagedObjects`; empty when the call fails (the caller then waits for what it requires).
    func exportedCharacteristics(under devicePath: String) async -> Set<String> {
        guard let reply = try? await call("/", BlueZ.objectManager, "GetManagedObjects") else { return [] }
        var uuids: Set<String> = []
        for entry in reply.arguments.first?.entries ?? [] {
            guard let path = entry.key.string, path.hasPrefix(devicePath + "/") else { continue }
            for interface in entry.value.entries ?? [] where interface.key.string == BlueZ.gattCharacteristic {
                if let uuid = interface.value.stringKeyed?["UUID"]?.string { uuids.insert(uuid.lowercased()) }
            }
        }
        return uuids
    }

    func reportServices(_ address: String, path: String) {
        var services: [BluetoothUUID: [BluetoothUUID]] = [:]
        for (service, chars) in mirror.services(of: path) {
            guard let uuid = BluetoothUUID(service) else { continue }
            services[uuid] = chars.compactMap(BluetoothUUID.init).sorted()
        }
        emit(address, .servicesDiscovered(services))
    }

    /// Stage 5: pairing, when the profile requires a bond and the device has none.
    func bondIfRequired(_ address: String, path: String, plan: ConnectionPlan) async throws(AttemptFailure) {
        let device = mirror.properties(path, BlueZ.device)
        guard plan.requiresPairing, device?["Paired"]?.bool != true, device?["Bonded"]?.bool != true else { return }
        if plan.bondRenewal == .everySession {
            logger.info(
                "pairing for this session only: the device forgets its bond when the session ends",
                metadata: ["device": "\(address)", "profile": "\(plan.profile)"]
            )
        }
        do {
            try await pair(path, address: address)
        } catch {
            await disconnect(address, reason: "local")
            throw AttemptFailure(.configuration, "pairing failed: \(error)")
        }
    }

    /// Stage 6: subscriptions. The PropertiesChanged match is in place since start; the path is marked watched
    /// before StartNotify so a notification right after it is kept. StartNotify is idempotent for a client that
    /// is already subscribed: bluetoothd keeps our notify session across a reconnect and writes the device's CCCD
    /// again itself, so a StopNotify/StartNotify cycle here would only lose what the device sends in between
    /// (seen against bluetoothd 5.66 in the VM tier).
    func subscribe(
        _ address: String,
        to characteristics: [String: String],
        plan: ConnectionPlan
    ) async throws(AttemptFailure) {
        for uuid in plan.subscribe {
            guard let characteristic = characteristics[uuid.uuidString],
                let subscription = subscription(characteristic, plan: plan)
            else { continue }
            sessions[address]?.watched[characteristic] = subscription
            do {
                _ = try await call(characteristic, BlueZ.gattCharacteristic, "StartNotify")
            } catch {
                // InProgress: bluetoothd is still re-enabling our session from before the reconnect.
                if error.name == .inProgress { continue }
                sessions[address]?.watched[characteristic] = nil
                if ErrorClass(error) == .objectMissing || !linkUp(address) {
                    endSession(address: address, reason: "vanished")
                    throw AttemptFailure(.objectMissing, "StartNotify \(uuid): \(error)")
                }
                logger.warning(
                    "StartNotify failed",
                    metadata: ["device": "\(address)", "characteristic": "\(uuid)", "error": "\(error)"]
                )
            }
        }
        guard linkUp(address) else { throw AttemptFailure(.transient, "disconnected while subscribing") }
    }

    /// The session streams from here; the next device may connect now.
    func markEstablished(_ address: String) {
        sessions[address]?.established = true
        connecting = false
        spawn { await $0.resumeDiscoveryAfterConnect() }
    }

    /// Stage 7: static characteristics (Device Information, Battery, features), each read once per connection.
    func readOnce(_ address: String, from characteristics: [String: String], plan: ConnectionPlan) async {
        for uuid in plan.readOnce where linkUp(address) {
            guard let characteristic = characteristics[uuid.uuidString] else { continue }
            do {
                let reply = try await call(characteristic, BlueZ.gattCharacteristic, "ReadValue", [.properties([:])])
                if let bytes = reply.arguments.first?.bytes, linkUp(address) {
                    emit(address, .value(CharacteristicValue(characteristic: uuid, bytes: bytes, delivery: .read)))
                }
            } catch {
                logger.warning(
                    "ReadValue failed",
                    metadata: ["device": "\(address)", "characteristic": "\(uuid)", "error": "\(error)"]
                )
            }
        }
    }

    /// Stage 8: Current Time, for profiles whose devices expect the collector to set their clock.
    func setDeviceClock(_ address: String, from characteristics: [String: String], plan: ConnectionPlan) async {
        guard plan.setsDeviceClock, configuration.setDeviceClock, linkUp(address),
            let characteristic = characteristics[CurrentTime.uuid.uuidString]
        else { return }
        let bytes = CurrentTime.bytes(for: configuration.wallClock(), in: configuration.timeZone)
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

    /// Disconnects a device we are connected to and waits (briefly) for bluetoothd to report the link down:
    /// its reply comes before the property changes, and the next attempt must not see a stale
    /// `ServicesResolved = true`.
    func disconnect(_ address: String, reason: String) async {
        guard let session = sessions[address] else { return }
        _ = try? await call(session.path, BlueZ.device, "Disconnect", timeout: .seconds(5))
        _ = await wait(timeout: .seconds(2)) {
            self.mirror.properties(session.path, BlueZ.device)?["ServicesResolved"]?.bool != true
        }
        endSession(address: address, reason: reason)
    }

    func endSession(devicePath: String, reason: String) {
        guard let address = sessions.first(where: { $0.value.path == devicePath })?.key else { return }
        endSession(address: address, reason: reason)
    }

    /// Forgets a session and emits `disconnected`. Never `RemoveDevice` (that deletes the bond), except for a
    /// profile whose devices forget their bond after each session (`bondRenewal == .everySession`).
    func endSession(address: String, reason: String) {
        guard let session = sessions.removeValue(forKey: address) else { return }
        if session.plan.requiresPairing, session.plan.bondRenewal == .everySession {
            spawn { await $0.removeBond(session.path, address: address, profile: session.plan.profile) }
        }
        for timer in session.timers { tasks[timer]?.cancel() }
        if let machine = session.machine, machine.status == .running {
            logger.warning(
                "device session interrupted: nothing of it is saved, the next connection repeats it",
                metadata: [
                    "device": "\(address)", "profile": "\(session.plan.profile)",
                    "step": "\(machine.currentStep ?? "-")", "reason": "\(reason)",
                ]
            )
        }
        if session.connectedEmitted { emit(address, .disconnected(reason: reason)) }
        if session.established {
            cooldownUntil[address] = elapsed() + configuration.reconnectBackoff * configuration.backoffScale
            logger.info("device session ended", metadata: ["device": "\(address)", "reason": "\(reason)"])
        }
    }

    // MARK: - Pairing

    /// Removes a device whose bond is renewed every session, so the next connection pairs afresh instead of
    /// offering the device a key it no longer holds (a failed security request it answers by hanging up).
    func removeBond(_ path: String, address: String, profile: String) async {
        guard let adapterPath, bluezPresent else { return }
        logger.info(
            "removing the bond after the session: this device forgets its side, the next connection pairs again",
            metadata: ["device": "\(address)", "profile": "\(profile)"]
        )
        do {
            _ = try await call(adapterPath, BlueZ.adapter, "RemoveDevice", [.objectPath(path)], timeout: .seconds(5))
        } catch {
            logger.warning(
                "removing the bond failed: the next connection may offer a key the device has forgotten",
                metadata: ["device": "\(address)", "error": "\(error)"]
            )
        }
    }

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
