/// A care-plan file that cannot be used: which file, where in it, and what is wrong.
public struct CarePlanError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file, as given to ``CarePlanDocument/parse(_:path:bridgeZone:)``.
    public var path: String
    /// A JSON path such as `tasks[0].schedule.elements[1].interval`; empty for the whole document.
    public var location: String
    public var message: String

    public init(path: String, location: String, message: String) {
        self.path = path
        self.location = location
        self.message = message
    }

    /// `plan.json: tasks[0].schedule.elements[1].interval: interval must have …`
    public var description: String {
        location.isEmpty ? "\(path): \(message)" : "\(path): \(location): \(message)"
    }
}
