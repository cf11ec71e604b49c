import Logging
import NIOCore

extension MQTTSession {
    /// Subscribes on the live connection and returns the broker's SUBACK codes, one per subscription.
    ///
    /// Messages arrive on ``messages``. The session remembers its subscriptions and subscribes again after a
    /// reconnect whose CONNACK says the broker kept no session (always the case with clean session).
    ///
    /// - Throws: ``MQTTClientError``: `.notConnected`, `.unsupportedQoS`, `.connectionLost`, `.sessionClosed`.
    public func subscribe(
        _ subscriptions: [SubscribePacket.Subscription]
    ) async throws(MQTTClientError) -> [SubAckPacket.ReturnCode] {
        guard !subscriptions.isEmpty else { return [] }
        guard subscriptions.allSatisfy({ $0.qos != .exactlyOnce }) else {
            throw MQTTClientError(.unsupportedQoS, "subscriptions with QoS 2 are not supported")
        }
        guard case .connected(let channel) = state else {
            throw MQTTClientError(.notConnected, "subscribe needs a live connection")
        }
        for subscription in subscriptions {
            self.subscriptions.removeAll { $0.topicFilter == subscription.topicFilter }
            self.subscriptions.append(subscription)
        }
        let packetID = allocatePacketID()
        do {
            return try await withCheckedThrowingContinuation { continuation in
                subscribeWaiters[packetID] = continuation
                channel.writeAndFlush(
                    MQTTPacket.subscribe(SubscribePacket(packetID: packetID, subscriptions: subscriptions)),
                    promise: nil
                )
            }
        } catch let error as MQTTClientError {
            throw error
        } catch {
            throw MQTTClientError(.connectionLost, "subscribe failed", cause: error)
        }
    }

    func failSubscribeWaiters(_ error: MQTTClientError) {
        let waiters = subscribeWaiters
        subscribeWaiters.removeAll()
        for waiter in waiters.values { waiter.resume(throwing: error) }
    }
}
