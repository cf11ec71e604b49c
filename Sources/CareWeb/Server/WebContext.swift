public import CareStore
public import Hummingbird
public import NIOCore

/// What a request carries through the care app's middleware: the signed-in session, if any, and the client's
/// address (login throttling).
public struct WebContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The session found from the request's cookie; nil before login.
    public var session: AppSession?
    /// The peer's IP address, without the port.
    public let clientAddress: String
    /// The connection the request came on (its TLS handshake may have checked a client certificate).
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
        channel = source.channel
    }

    /// Forms are small; anything larger is refused before it is read.
    public var maxUploadSize: Int { 64 * 1024 }
}
