import MQTTClient
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// One connection to a relay, command by reply: what ``SMTPClient`` talks through. A timer on the client's clock
/// closes the connection when the whole exchange takes longer than the configured timeout.
struct SMTPExchange {
    let channel: any Channel
    let relay: String
    let timedOut: Flag
    let timer: Task<Void, Never>
    var replies: AsyncThrowingStream<SMTPReply, any Error>.AsyncIterator
    /// Between STARTTLS and the first reply over TLS: a connection that ends then failed its handshake.
    var awaitingHandshake = false

    /// Connects; the greeting is the first ``reply()``.
    /// - Throws: ``SMTPError`` `.connectionFailed` when the relay cannot be reached.
    static func open(
        _ configuration: SMTPClient.Configuration,
        clock: any Clock<Duration>
    ) async throws(SMTPError)
        -> SMTPExchange
    {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: SMTPReply.self, throwing: (any Error).self)
        let timeoutSeconds = Double(configuration.timeout.components.seconds)
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(Int64(max(1, min(timeoutSeconds, 30)) * 1000)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(SMTPReplyDecoder()),
                        InboundStreamForwarder(continuation: continuation),
                    ])
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: configuration.host, port: configuration.port).get()
        } catch {
            continuation.finish()
            throw SMTPError(
                .connectionFailed,
                "cannot connect to the relay \(configuration.relay): \(error)",
                cause: error
            )
        }
        let timedOut = Flag()
        let timer = Task { [timeout = configuration.timeout] in
            do { try await clock.sleep(for: timeout) } catch { return }
            timedOut.raise()
            channel.close(promise: nil)
        }
        return SMTPExchange(
            channel: channel,
            relay: configuration.relay,
            timedOut: timedOut,
            timer: timer,
            replies: stream.makeAsyncIterator()
        )
    }

    /// The relay's next reply.
    /// - Throws: ``SMTPError`` `.timedOut`, `.tlsFailed` (after STARTTLS), `.connectionFailed` or
    ///   `.protocolViolation`.
    mutating func reply() async throws(SMTPError) -> SMTPReply {
        let next: SMTPReply?
        do {
            next = try await replies.next()
        } catch let error as SMTPError {
            throw error
        } catch {
            throw failure(error)
        }
        guard let next else { throw failure(nil) }
        awaitingHandshake = false
        return next
    }

    /// Sends one command line and reads its reply (errors never show the line: AUTH carries the password).
    mutating func command(_ line: String) async throws(SMTPError) -> SMTPReply {
        try await write(line + "\r\n")
        return try await reply()
    }

    /// Writes text as it is.
    func write(_ text: String) async throws(SMTPError) {
        do {
            try await channel.writeAndFlush(ByteBuffer(string: text)).get()
        } catch {
            throw failure(error)
        }
    }

    /// Checks the reply's code; a 4xx or 5xx becomes ``SMTPError`` `.rejected` naming `what`.
    func expect(_ reply: SMTPReply, _ code: Int, _ what: String) throws(SMTPError) {
        guard reply.code != code else { return }
        throw SMTPError(.rejected, "the relay \(relay) refused \(what): \(reply)", reply: reply)
    }

    /// Puts TLS under the connection after the relay's `220` to STARTTLS.
    mutating func startTLS(_ context: NIOSSLContext, host: String) async throws(SMTPError) {
        let channel = channel
        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        do {
            try await channel.eventLoop.submit {
                let handler = try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host)
                try channel.pipeline.syncOperations.addHandler(handler, position: .first)
            }.get()
        } catch {
            throw SMTPError(.tlsFailed, "TLS to the relay \(relay) cannot start: \(error)", cause: error)
        }
        awaitingHandshake = true
    }

    /// Says goodbye; the relay's answer does not matter any more.
    mutating func quit() async {
        _ = try? await command("QUIT")
    }

    func close() {
        timer.cancel()
        channel.close(promise: nil)
    }

    func failure(_ error: (any Error)?) -> SMTPError {
        if timedOut.isRaised {
            return SMTPError(.timedOut, "the relay \(relay) did not answer in time", cause: error)
        }
        if error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError || awaitingHandshake {
            return SMTPError(
                .tlsFailed,
                "TLS to the relay \(relay) failed: the certificate is not trusted or does not name the host "
                    + "(\(error.map { "\($0)" } ?? "the connection closed"))",
                cause: error
            )
        }
        return SMTPError(
            .connectionFailed,
            "the relay \(relay) closed the connection" + (error.map { ": \($0)" } ?? ""),
            cause: error
        )
    }
}

extension SMTPExchange {
    /// Set once by the timer when the exchange ran out of time.
    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)

        func raise() { value.store(true, ordering: .relaxed) }
        var isRaised: Bool { value.load(ordering: .relaxed) }
    }
}
