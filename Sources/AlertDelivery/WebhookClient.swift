import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Posts JSON to an HTTP webhook (plain `http://`, HTTP/1.1, one connection per request) on SwiftNIO.
public struct WebhookClient: Sendable {
    /// Why a post failed.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public let host: String
    public let port: Int
    public let path: String
    public let timeout: Duration

    /// - Parameters:
    ///   - url: `http://host[:port]/path` (HTTPS is not supported: put a local reverse proxy in front).
    ///   - timeout: the longest a post may take, connection included.
    /// - Throws: ``Failure`` for another scheme or a URL without a host.
    public init(url: String, timeout: Duration = .seconds(10)) throws(Failure) {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "http",
            let host = components.host, !host.isEmpty
        else {
            throw Failure(description: "'\(url)' is not an http:// URL with a host (https is not supported)")
        }
        self.host = host
        self.port = components.port ?? 80
        self.path =
            components.percentEncodedPath.isEmpty
            ? "/"
            : components.percentEncodedPath
                + (components.percentEncodedQuery.map { "?\($0)" } ?? "")
        self.timeout = timeout
    }

    /// Posts `body` as `application/json`.
    /// - Returns: the response status code.
    /// - Throws: ``Failure`` when the receiver cannot be reached, closes early, or does not answer in time.
    public func post(_ body: String, headers extra: [(String, String)] = []) async throws(Failure) -> Int {
        let group = MultiThreadedEventLoopGroup.singleton
        let promise = group.next().makePromise(of: Int.self)
        let target = "\(host):\(port)"
        do {
            let milliseconds = Int64(
                timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
            )
            let channel = try await ClientBootstrap(group: group)
                .connectTimeout(.milliseconds(milliseconds))
                .channelInitializer { channel in
                    channel.pipeline.addHTTPClientHandlers().flatMap {
                        channel.pipeline.addHandler(ResponseHandler(promise: promise))
                    }
                }
                .connect(host: host, port: port)
                .get()
            let timer = channel.eventLoop.scheduleTask(in: .milliseconds(milliseconds)) {
                promise.fail(Failure(description: "\(target) did not answer within \(timeout)"))
                channel.close(promise: nil)
            }
            var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: path)
            let bytes = ByteBuffer(string: body)
            head.headers.add(name: "Host", value: target)
            head.headers.add(name: "Content-Type", value: "application/json")
            head.headers.add(name: "Content-Length", value: String(bytes.readableBytes))
            head.headers.add(name: "Connection", value: "close")
            head.headers.add(name: "User-Agent", value: "carebridge")
            for (name, value) in extra { head.headers.add(name: name, value: value) }
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            channel.write(HTTPClientRequestPart.body(.byteBuffer(bytes)), promise: nil)
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
            defer {
                timer.cancel()
                channel.close(promise: nil)
            }
            return try await promise.futureResult.get()
        } catch let failure as Failure {
            throw failure
        } catch {
            promise.fail(error)
            throw Failure(description: "cannot post to \(target): \(error)")
        }
    }
}

/// Completes the promise with the status code once the whole response has arrived.
private final class ResponseHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    let promise: EventLoopPromise<Int>
    var status: Int?

    init(promise: EventLoopPromise<Int>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): status = Int(head.status.code)
        case .body: break
        case .end:
            if let status { promise.succeed(status) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(WebhookClient.Failure(description: "the receiver's answer could not be read: \(error)"))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(WebhookClient.Failure(description: "the receiver closed the connection without an answer"))
        context.fireChannelInactive()
    }
}
