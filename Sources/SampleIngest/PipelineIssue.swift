public import Foundation

/// Something the pipeline could not use, or noticed, while ingesting.
public struct PipelineIssue: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable {
        /// The event cannot be used (malformed payload, unknown characteristic, unclaimed device): for a
        /// recording this is a bad line.
        case badEvent
        /// Worth knowing, nothing lost from the event itself (a missing decoder, a dropped partial packet).
        case warning
    }

    public var severity: Severity
    public var device: String
    public var time: Date
    public var message: String

    public init(severity: Severity, device: String, time: Date, message: String) {
        self.severity = severity
        self.device = device
        self.time = time
        self.message = message
    }

    public var description: String { "\(device): \(message)" }
}
