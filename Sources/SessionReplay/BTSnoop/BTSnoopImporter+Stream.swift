public import BridgeCore
import Foundation

extension BTSnoopImporter {
    /// Imports a capture one record at a time (``BTSnoopReader`` reads them from a file): each call hands back the
    /// events whose place in the recording is settled, so a long capture never has to be held in memory.
    ///
    /// The recording lists events in capture-time order, and one of an instant in the order they were made. A read's
    /// value is made when its last part arrives, after events captured in between, so events wait here until no
    /// event still to come can be earlier: until no long read is open from before them. When the capturing clock
    /// went back somewhere (``BTSnoopReader/timesNeverGoBack()``), a later record may be earlier than everything
    /// so far, so every event waits for ``finish(truncatedTail:)``, as the whole capture did before.
    public struct Stream {
        private var state: State
        private let datalink: BTSnoopFile.Datalink
        private let timesNeverGoBack: Bool
        /// Events made but not yet handed back, with the order they were made in.
        private var waiting: [(order: Int, event: TransportEvent)] = []
        private var made = 0

        /// - Parameter timesNeverGoBack: whether no record of the capture is earlier than the one before it.
        public init(options: Options, datalink: BTSnoopFile.Datalink, timesNeverGoBack: Bool) {
            self.state = State(options: options)
            self.datalink = datalink
            self.timesNeverGoBack = timesNeverGoBack
        }

        /// Reads one record.
        /// - Returns: the events now settled, in recording order (often none, often the record's own).
        public mutating func add(_ record: BTSnoopFile.Record) -> [TransportEvent] {
            state.statistics.packets += 1
            if record.originalLength > record.data.count { state.statistics.truncatedPackets += 1 }
            state.statistics.droppedPackets = max(state.statistics.droppedPackets, Int(record.drops))
            state.handle(HCIPacket(record: record, datalink: datalink), at: record.time, record: record.index)
            take()
            guard timesNeverGoBack else { return [] }
            // Still to come: records from this one's time on, and the long reads open now, at their first part's.
            let openReads = state.connections.values.compactMap { $0.longRead?.time }
            return release(upTo: openReads.reduce(record.time) { min($0, $1) })
        }

        /// Ends the capture.
        /// - Returns: the statistics, warnings and handle maps, with the events not handed back yet.
        public mutating func finish(truncatedTail: BTSnoopError?) -> Result {
            state.finish()
            take()
            if let tail = truncatedTail {
                state.warn("the capture ends inside a record (\(tail)): the records before it were imported")
            }
            if state.statistics.truncatedPackets > 0 {
                state.warn(
                    "\(state.statistics.truncatedPackets) packet(s) were cut short by the capture (a filtered or "
                        + "snap-length snoop log): values in them may be incomplete; enable the full (unfiltered) "
                        + "HCI snoop log"
                )
            }
            if state.statistics.droppedPackets > 0 {
                state.warn("the capturing side dropped \(state.statistics.droppedPackets) packet(s)")
            }
            return Result(
                events: release(upTo: .distantFuture),
                warnings: state.warnings,
                statistics: state.statistics,
                handleMaps: state.maps
            )
        }

        /// Moves the events the state machine made into `waiting`, numbered in the order they were made.
        private mutating func take() {
            for event in state.events {
                waiting.append((made, event))
                made += 1
            }
            state.events.removeAll(keepingCapacity: true)
        }

        /// The waiting events no later than `time`, by time and then by the order they were made: every event still
        /// to come is at `time` or later and was made after them, so it sorts after them.
        private mutating func release(upTo time: Date) -> [TransportEvent] {
            guard waiting.contains(where: { $0.event.time <= time }) else { return [] }
            let ready = waiting.filter { $0.event.time <= time }
                .sorted { ($0.event.time, $0.order) < ($1.event.time, $1.order) }
            waiting.removeAll { $0.event.time <= time }
            return ready.map(\.event)
        }
    }
}
