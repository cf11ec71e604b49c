import MQTTClient
import NIOCore
import NIOPosix
import Synchronization

/// A fake broker on a loopback port for what a real one will not do, such as sending malformed bytes.
///
/// Each accepted connection gets an index (0, 1, …); `script` decides, per connection and packet received,
/// which raw bytes to answer with. Everything received is recorded.
final class ScriptedBroker: Sendable {
    typealias Script = @Sendable (_ connection: Int, _ packet: MQTTPacket) -> [UInt8]

    /// What the connections received, shared with the NIO handlers.
    private final class Recorder: Sendable {
        let packets = Mutex<[(connection: Int, packet: MQTTPacket)]>([])
        let connections = Mutex(0)

        func nextConnection() -> Int {
            connections.withLock { count in
                defer { count += 1 }
                return count
            }
        }
    }

    private let channel: any Channel
    private let recorder = Recorder()

    var port: Int { channel.localAddress!.port! }
    var connectionCount: Int { recorder.connections.withLock { $0 } }
    var packets: [(connection: Int, packet: MQTTPacket)] { recorder.packets.withLock { $0 } }

    /// The usual answers: CONNACK accepted, PUBACK for QoS 1, PINGRESP.
    static func standardReply(to packet: MQTTPacket) -> [UInt8] {
        let reply: MQTTPacket?
        switch packet {
        case .connect: reply = .connack(ConnAckPacket())
        case .publish(let publish) where publish.qos == .atLeastOnce: reply = .puback(packetID: publish.packetID!)
        case .pingreq: reply = .pingresp
        default: reply = nil
        }
        guard let reply else { return [] }
        var buffer = ByteBuffer()
        try! reply.encode(into: &buffer)
        return Array(buffer.readableBytesView)
    }

    init(script: @escaping Script) async throws {
        let recorder = self.recorder
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(MQTTPacketDecoder()),
                        Handler(index: recorder.nextConnection(), script: script, recorder: recorder),
                    ])
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
    }

    deinit { channel.close(promise: nil) }

    private final class Handler: ChannelInboundHandler, Sendable {
        typealias InboundIn = MQTTPacket
        typealias OutboundOut = ByteBuffer

        let index: Int
        let script: Script
        let recorder: Recorder

        init(index: Int, script: @escaping Script, recorder: Recorder) {
            self.index = index
            self.script = script
            self.recorder = recorder
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let packet = unwrapInboundIn(data)
            recorder.packets.withLock { $0.append((index, packet)) }
            let reply = script(index, packet)
            if !reply.isEmpty {
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: reply)), promise: nil)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
