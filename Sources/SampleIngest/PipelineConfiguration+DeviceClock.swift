public import BridgeCore
import Foundation
import GATTDecoding

extension PipelineConfiguration {
    /// A session's clock offset in whole seconds when the device clock is evidently wrong: a live measurement
    /// further than ``clockSkewTolerance`` from its receive time, a record more than ``futureTolerance`` in the
    /// future, or a record before the year 2000. Estimated from the last live measurement, else from the last
    /// sample. Nil when the clock is believable.
    /// - Parameters:
    ///   - samples: the session's samples that carry a device time, in order.
    ///   - lastLive: the session's last live measurement, if any.
    func clockOffset(of samples: [SampleDraft], lastLive: SampleDraft?) -> Double? {
        func skew(_ sample: SampleDraft) -> Double { sample.receivedAt.timeIntervalSince(sample.start) }
        if let lastLive, abs(skew(lastLive)) > clockSkewTolerance { return skew(lastLive).rounded() }
        let implausible = samples.contains { sample in
            (sample.deviceTime?.year ?? 2000) < 2000 || -skew(sample) > futureTolerance
        }
        guard implausible, let last = samples.last else { return nil }
        return skew(last).rounded()
    }

    /// The samples of one value decoded on its own (`carebridge decode`), placed in time as a session places
    /// them: when their device time is evidently wrong (before 2000, in the future) each moves by the offset to
    /// its receive time, keeps its own ``SampleDraft/deviceTime`` and carries the offset as
    /// ``SampleDraft/clockOffset`` (the flag that its time was corrected).
    public func placedInTime(_ samples: [SampleDraft]) -> [SampleDraft] {
        let timed = samples.filter { $0.deviceTime != nil }
        guard let offset = clockOffset(of: timed, lastLive: nil) else { return samples }
        return samples.map { sample in
            guard sample.deviceTime != nil else { return sample }
            var sample = sample
            sample.start = sample.start.addingTimeInterval(offset)
            sample.end = sample.end.addingTimeInterval(offset)
            sample.clockOffset = offset
            return sample
        }
    }
}
