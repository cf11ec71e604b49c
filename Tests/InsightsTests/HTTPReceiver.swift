import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A real HTTP/1.1 server on a loopback port, started by a test: it records every POST body and answers with the
/// status the test sets; it can be stopped and started again on the same port (a receiver outage). With a
/// certificate it speaks HTTPS only.
final class HTTPReceiver: Sendable {
    struct Request: Sendable {
        var path: String
        var headers: [String: String]
        var body: String
    }

    private let state = Mutex<(requests: [Request], status: Int, channel: (any Channel)?, placeholder: Int32?)>(
        ([], 200, nil, nil)
    )
    private(set) nonisolated(unsafe) var port = 0
    private let tls: NIOSSLContext?

    /// - Parameter certificate: the server certificate and key (PEM files) for HTTPS; nil: plain HTTP.
    init(certificate: (certificate: String, key: String)? = nil) throws {
        tls = try certificate.map {
            try NIOSSLContext(
                configuration: TLSConfiguration.makeServerConfiguration(
                    certificateChain: try NIOSSLCertificate.fromPEMFile($0.certificate).map { .certificate($0) },
                    privateKey: .privateKey(try NIOSSLPrivateKey(file: $0.key, format: .pem))
                )
            )
        }
    }

    var requests: [Request] { state.withLock { $0.requests } }

    /// The status the next requests are answered with.
    func answer(_ status: Int) { state.withLock { $0.status = status } }

    func start() async throws {
        releasePlaceholder()
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [tls] channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                }.flatMap {
                    channel.pipeline.configureHTTPServerPipeline()
                }.flatMap {
                    channel.pipeline.addHandler(Handler(receiver: self))
                }
            }
        let channel = try await bootstrap.bind(host: "127.0.0.1", port: port).get()
        port = channel.localAddress?.port ?? 0
        state.withLock { $0.channel = channel }
    }

    func stop() async throws {
        let channel = state.withLock { state -> (any Channel)? in
            defer { state.channel = nil }
            return state.channel
        }
        try await channel?.close()
        holdPort()
    }

    /// Keeps the port of a stopped receiver bound, without listening, until it starts again: a connection is
    /// then refused, as it should be during an outage, instead of reaching whatever else the tests running in
    /// parallel bound to the freed port meanwhile (a broker, another receiver). The socket is bound without
    /// SO_REUSEADDR, so nothing else can bind the port, and it never connected, so closing it leaves no TIME_WAIT.
    private func holdPort() {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            close(descriptor)
            return
        }
        state.withLock { $0.placeholder = descriptor }
    }

    deinit { releasePlaceholder() }

    private func releasePlaceholder() {
        if let descriptor = state.withLock({ state -> Int32? in
            defer { state.placeholder = nil }
            return state.placeholder
        }) {
            close(descriptor)
        }
    }

    fileprivate func record(_ request: Request) -> Int {
        state.withLock { state in
            state.requests.append(request)
            return state.status
        }
    }

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let receiver: HTTPReceiver
        var head: HTTPRequestHead?
        var body = ""

        init(receiver: HTTPReceiver) { self.receiver = receiver }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = ""
            case .body(var buffer):
                body += buffer.readString(length: buffer.readableBytes) ?? ""
            case .end:
                guard let head else { return }
                var headers: [String: String] = [:]
                for (name, value) in head.headers { headers[name.lowercased()] = value }
                let status = receiver.record(Request(path: head.uri, headers: headers, body: body))
                var response = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status))
                response.headers.add(name: "Content-Length", value: "0")
                response.headers.add(name: "Connection", value: "close")
                context.write(wrapOutboundOut(.head(response)), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
