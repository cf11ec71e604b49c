public import CareStore

/// An ``OutboxChannel`` the store queues for only once it is enabled (sample states, the uploads, the hub): whoever
/// delivers it enables it before the first sample is stored.
public protocol QueueingOutboxChannel: OutboxChannel {
    /// Starts queueing for the channel (what it takes from now on, and what it wants of the store's history).
    func enable() async throws(CareStoreError)
}
