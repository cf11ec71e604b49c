public import HTTPTypes

/// A request the app refuses, with the status and a sentence for the person (never internals or secrets).
public struct WebError: Error, Sendable {
    public var status: HTTPResponse.Status
    public var message: String

    public init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }
}
