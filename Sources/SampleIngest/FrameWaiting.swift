import BridgeCore
import Foundation
import FrameDecoding

/// A final frame waiting for the frame it merges with.
struct FrameWaiting {
    var frame: Frame
    var decoded: DecodedFrame
    var context: SampleContext
    var time: Date
    /// Decoded shortly after an intermediate frame (a live reading).
    var live: Bool

    /// Whether `partner`, decoded at `time`, is this frame's merge partner: within the window, same `by` value.
    func accepts(_ partner: DecodedFrame, at partnerTime: Date) -> Bool {
        guard let merge = frame.merge, partner.frame == merge.with,
            abs(partnerTime.timeIntervalSince(time)) <= merge.window
        else { return false }
        guard let by = merge.by else { return true }
        return decoded.field(by)?.raw != nil && decoded.field(by)?.raw == partner.field(by)?.raw
    }
}
