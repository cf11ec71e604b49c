import Logging
public import NIOCore

extension MQTTSession {
    /// Publishes one message.
    ///
    /// With QoS 0 the message is written to the live connection and the call returns. With QoS 1 it is queued,
    /// sent (now, or when the connection returns), and the call returns when its PUBACK arrives.
    ///
    /// - Throws: ``MQTTClientError``: `.invalidTopic`, `.unsupportedQoS` (QoS 2), `.notConnected` (QoS 0 without a
    ///   connection, or before ``connect()``), `.queueFull`, `.publishTimedOut`, `.sessionClosed`, `.cancelled`.
    public func publish(
        topic: String,
        payload: ByteBuffer,
        qos: QoS = .atLeastOnce,
        retain: Bool = false
    ) async throws(MQTTClientError) {
        guard PublishPacket.isValidTopicName(topic), topic.utf8.count <= Int(UInt16.max) else {
            throw MQTTClientError(.invalidTopic, "'\(topic)' is not a valid topic name")
        }
        guard qos != .exactlyOnce else { throw MQTTClientError(.unsupportedQoS, "QoS 2 is not supported; use QoS 1") }
        switch state {
        case .idle: throw MQTTClientError(.notConnected, "call connect() before publishing")
        case .closed: throw MQTTClientError(.sessionClosed, "the session was closed")
        case .connecting, .connected, .reconnecting: break
        }
        switch qos {
        case .exactlyOnce:
            break
        case .atMostOnce:
            guard case .connected(let channel) = state else {
                throw MQTTClientError(.notConnected, "QoS 0 message to '\(topic)' dropped: not connected")
            }
            channel.writeAndFlush(
                MQTTPacket.publish(PublishPacket(topic: topic, payload: payload, retain: retain)),
                promise: nil
            )
        case .atLeastOnce:
            guard pending.count < configuration.maximumPendingPublishes else {
                throw MQTTClientError(.queueFull, "\(pending.count) QoS 1 publishes are waiting for PUBACK")
            }
            let packetID = allocatePacketID()
            let packet = PublishPacket(
                topic: topic,
                payload: payload,
                qos: .atLeastOnce,
                retain: retain,
                packetID: packetID
            )
            do {
                try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                        enqueue(packet, continuation: continuation)
                    }
                } onCancel: {
                    Task { await self.cancelPublish(packetID) }
                }
            } catch let error as MQTTClientError {
                throw error
            } catch {
                throw MQTTClientError(.cancelled, "publish to '\(topic)' was cancelled", cause: error)
            }
        }
    }

    /// Publishes UTF-8 text; see ``publish(topic:payload:qos:retain:)``.
    public func publish(
        topic: String,
        payload: String,
        qos: QoS = .atLeastOnce,
        retain: Bool = false
    ) async throws(MQTTClientError) {
        try await publish(topic: topic, payload: ByteBuffer(string: payload), qos: qos, retain: retain)
    }

    func enqueue(_ packet: PublishPacket, continuation: CheckedContinuation<Void, any Error>) {
        let packetID = packet.packetID!
        if Task.isCancelled {
            continuation.resume(throwing: MQTTClientError(.cancelled, "publish to '\(packet.topic)' was cancelled"))
            return
        }
        var entry = PendingPublish(packet: packet, sent: false, continuation: continuation)
        if case .connected(let channel) = state {
            channel.writeAndFlush(MQTTPacket.publish(packet), promise: nil)
            entry.sent = true
            logger.trace("PUBLISH sent", metadata: ["mqtt.packet_id": "\(packetID)", "mqtt.topic": "\(packet.topic)"])
        } else {
            logger.debug("PUBLISH queued until reconnect", metadata: ["mqtt.packet_id": "\(packetID)"])
        }
        if let timeout = configuration.publishTimeout {
            entry.timeout = Task { [clock] in
                do { try await clock.sleep(for: timeout) } catch { return }
                self.expirePublish(packetID)
            }
        }
        pending.append(entry)
    }

    func allocatePacketID() -> UInt16 {
        repeat {
            lastPacketID = lastPacketID == UInt16.max ? 1 : lastPacketID + 1
        } while pending.contains(where: { $0.packet.packetID == lastPacketID }) || subscribeWaiters[lastPacketID] != nil
            || resubscribeIDs.contains(lastPacketID)
        return lastPacketID
    }

    func removePending(_ packetID: UInt16) -> PendingPublish? {
        guard let index = pending.firstIndex(where: { $0.packet.packetID == packetID }) else { return nil }
        let entry = pending.remove(at: index)
        entry.timeout?.cancel()
        return entry
    }

    func expirePublish(_ packetID: UInt16) {
        guard let entry = removePending(packetID) else { return }
        logger.warning("PUBACK timed out", metadata: ["mqtt.packet_id": "\(packetID)"])
        entry.continuation.resume(
            throwing: MQTTClientError(
                .publishTimedOut,
                "no PUBACK for packet \(packetID) on '\(entry.packet.topic)' within \(configuration.publishTimeout!)"
            )
        )
    }

    func cancelPublish(_ packetID: UInt16) {
        guard let entry = removePending(packetID) else { return }
        entry.continuation.resume(throwing: MQTTClientError(.cancelled, "publish of packet \(packetID) was cancelled"))
    }
}
