extension SampleStateChannel {
    /// What the channel has delivered so far.
    public struct Statistics: Sendable, Hashable {
        /// Sample messages acknowledged by the broker (PUBACK) and removed from the outbox.
        public var delivered = 0
        /// Discovery configs acknowledged (each device and type once; the connection republishes them after a
        /// reconnect).
        public var configs = 0
        /// Entries dropped because their sample was deleted before it was published, or is quarantined.
        public var skipped = 0
        /// Retractions published for samples deleted after they were published.
        public var retracted = 0
        /// Entries dropped because their sample waits in the unassigned inbox of a store with several patients
        /// (assigning it queues it again).
        public var unassigned = 0
    }
}
