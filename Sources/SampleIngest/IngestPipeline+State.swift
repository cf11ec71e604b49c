import BridgeCore
import BridgeFoundation
import DeviceProfiles
import DeviceSessions
import Foundation
import FrameDecoding

/// What the pipeline keeps per device and per session between events.
extension IngestPipeline {
    struct Output {
        var samples: [QuantitySample]
        var issues: [PipelineIssue]
        var batteries: [BatteryReading] = []
    }

    struct PendingSample {
        var sample: SampleDraft
        var live: Bool
    }

    struct Session {
        var pending: [PendingSample] = []
        var lastIntermediate: Date?
        /// Per characteristic: GHS sends live and stored observations at once, each split into its own segments.
        var firstPacket: [BluetoothUUID: (bytes: [UInt8], time: Date)] = [:]
        var awaitingContext: [(sequence: UInt16, samples: [PendingSample])] = []
        /// The last advertised value per Service Data UUID / Manufacturer Data company (repeats are collapsed).
        var lastServiceData: [String: [UInt8]] = [:]
        /// Frames whose samples wait for their merge partner (`merge`).
        var waitingForMerge: [FrameWaiting] = []
        /// The last final frame of each name, for a merging frame that comes second.
        var recentFrames: [String: (decoded: DecodedFrame, time: Date)] = [:]
        /// The last final frame per characteristic and frame name, for `finalRepeats` (reset by an intermediate
        /// frame or a value no frame selects).
        var lastFinalFrames: [String: (bytes: [UInt8], time: Date)] = [:]
        var emittedTypes: Set<QuantityType> = []
        var lastAdvertisement: Date?
        /// Receive time minus the device's own clock, read at connect (a `clock` characteristic), in seconds.
        var measuredClockOffset: Double?
        /// The bridge asked for stored records (RACP `01 …`) and the final response has not come yet: every
        /// measurement value until then is a downloaded record.
        var downloading = false
    }

    struct DeviceState {
        var identity: DeviceIdentity
        var profile: DeviceProfile?
        /// Plausibility and measurement range for this device (the profile's, over the configuration's).
        var screening = SampleScreening()
        var session = Session()
        var sampleCount = 0
        /// Measurement values that came as stored records in answer to a report-records request.
        var downloadedRecords = 0
        var reportedUnclaimed = false
        /// Why the device's envelopes could not be opened, each said once (not per advertisement).
        var reportedEnvelopeFailures: Set<String> = []
        /// The profile's reader of records spread over several values (a memory-map download), per connection.
        var recordReader: (any StreamedRecordReader)?
    }
}
