import BridgeCore
import Foundation
import Logging

extension BlueZClient {
    // MARK: - Adapter

    func adapterNames() -> [String] {
        mirror.paths(implementing: BlueZ.adapter).map(Self.adapterName)
    }

    /// The configured adapter, else the first powered one, else the first one.
    func selectAdapter() -> String? {
        let adapters = mirror.paths(implementing: BlueZ.adapter)
        if let wanted = configuration.adapter {
            return adapters.first { Self.adapterName($0) == wanted }
        }
        return adapters.first { mirror.properties($0, BlueZ.adapter)?["Powered"]?.bool == true } ?? adapters.first
    }

    /// Powers the adapter on when it is off; rfkill and other refusals become actionable errors.
    func powerOn(_ path: String) async throws(TransportError) {
        let name = Self.adapterName(path)
        let properties = mirror.properties(path, BlueZ.adapter) ?? [:]
        if properties["PowerState"]?.string == "off-blocked" {
            throw TransportError(
                .blockedByRfkill,
                "adapter \(name) is blocked by rfkill: run `rfkill unblock bluetooth` (and check the airplane-mode switch)"
            )
        }
        if properties["Powered"]?.bool == true { return }
        logger.info("powering adapter on", metadata: ["adapter": "\(name)"])
        do {
            _ = try await call(
                path,
                BlueZ.properties,
                "Set",
                [.string(BlueZ.adapter), .string("Powered"), .variant(.boolean(true))],
                timeout: .seconds(10)
            )
        } catch {
            if error.message.lowercased().contains("rfkill") {
                throw TransportError(
                    .blockedByRfkill,
                    "adapter \(name) is blocked by rfkill: run `rfkill unblock bluetooth` (and check the airplane-mode switch)",
                    cause: error
                )
            }
            throw TransportError(.adapterNotReady, "cannot power adapter \(name) on", cause: error)
        }
        let powered = await wait(timeout: .seconds(5)) {
            self.mirror.properties(path, BlueZ.adapter)?["Powered"]?.bool == true
        }
        if !powered {
            // Some stacks answer Set before the PropertiesChanged: ask once more.
            if let reply = try? await call(
                path,
                BlueZ.properties,
                "Get",
                [.string(BlueZ.adapter), .string("Powered")]
            ),
                reply.arguments.first?.bool == true
            {
                return
            }
            throw TransportError(.adapterNotReady, "adapter \(name) did not power on within 5 s")
        }
    }

    // MARK: - Discovery

    /// `SetDiscoveryFilter{Transport: le, DuplicateData: true}` (no UUID filter: broadcast scales carry their
    /// data only as service data), then `StartDiscovery` with the staged retries of bluez-dbus.md §7.
    func startDiscovery() async throws(TransportError) {
        guard let adapterPath, !discovering, !stopping else { return }
        let filter = DBusValue.properties(["Transport": .string("le"), "DuplicateData": .boolean(true)])
        do {
            _ = try await call(adapterPath, BlueZ.adapter, "SetDiscoveryFilter", [filter])
        } catch {
            logger.warning("SetDiscoveryFilter failed; discovering unfiltered", metadata: ["error": "\(error)"])
        }
        var attempt = 0
        while true {
            attempt += 1
            do {
                _ = try await call(adapterPath, BlueZ.adapter, "StartDiscovery")
                discovering = true
                return
            } catch {
                let errorClass = ErrorClass(error)
                if error.name == .inProgress, attempt == 1 {
                    // Possibly our own earlier session (after a reattach): stop it and start again.
                    _ = try? await call(adapterPath, BlueZ.adapter, "StopDiscovery")
                }
                let backoff = Backoff.for(errorClass)
                logger.warning(
                    "StartDiscovery failed",
                    metadata: ["attempt": "\(attempt)", "error": "\(error)", "class": "\(errorClass.rawValue)"]
                )
                if errorClass == .configuration {
                    throw TransportError(
                        error.message.lowercased().contains("rfkill") ? .blockedByRfkill : .discoveryFailed,
                        "cannot start discovery on \(Self.adapterName(adapterPath))",
                        cause: error
                    )
                }
                guard errorClass.isRetryable, attempt < max(backoff.attempts, 4) else {
                    throw TransportError(
                        .discoveryFailed,
                        "cannot start discovery on \(Self.adapterName(adapterPath)) after \(attempt) attempts",
                        cause: error
                    )
                }
                if errorClass == .needsReset, attempt == 1 { await powerCycle() }
                await sleep(backoff.delay(beforeRetry: attempt))
            }
        }
    }

    func stopDiscovery() async {
        guard discovering, let adapterPath else { return }
        discovering = false
        do {
            _ = try await call(adapterPath, BlueZ.adapter, "StopDiscovery")
        } catch {
            logger.debug("StopDiscovery failed", metadata: ["error": "\(error)"])
        }
    }

    func powerCycle() async {
        guard let adapterPath else { return }
        logger.warning("power-cycling adapter", metadata: ["adapter": "\(Self.adapterName(adapterPath))"])
        for state in [false, true] {
            _ = try? await call(
                adapterPath,
                BlueZ.properties,
                "Set",
                [.string(BlueZ.adapter), .string("Powered"), .variant(.boolean(state))]
            )
        }
    }

    // MARK: - Scanner supervision (the watchdog is a service of the bridge: BridgeRuntime's ScannerWatchdog)

    func scannerState() -> ScannerState {
        // The actor answered: the loop is alive (systemd WATCHDOG=1 is sent from this).
        if !stopping, fatal == nil { status(.alive) }
        return ScannerState(
            discovering: discovering && !discoveryPausedForConnect && adapterPath != nil && !stopping,
            advertisements: advertisements
        )
    }

    func recover(_ step: ScannerRecovery) async {
        guard discovering, !discoveryPausedForConnect, adapterPath != nil, !stopping else { return }
        switch step {
        case .restartDiscovery:
            await stopDiscovery()
            do { try await startDiscovery() } catch { fail(error) }
        case .powerCycle:
            await stopDiscovery()
            await powerCycle()
            do { try await startDiscovery() } catch { fail(error) }
        case .giveUp(let silence):
            fail(
                TransportError(
                    .scannerWedged,
                    "no advertisement for \(silence) after restarting discovery and power-cycling the adapter; "
                        + "exiting so the service manager restarts the bridge"
                )
            )
        }
        inputContinuation.yield(.wake)
    }
}
