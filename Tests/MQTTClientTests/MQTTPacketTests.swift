import MQTTClient
import NIOCore
import NIOEmbedded
import NIOTestUtils
import Testing

/// Builds a ByteBuffer from bytes.
func buffer(_ bytes: [UInt8]) -> ByteBuffer { ByteBuffer(bytes: bytes) }

/// Encodes one packet to its bytes.
func wire(_ packet: MQTTPacket) throws -> [UInt8] {
    var out = ByteBuffer()
    try packet.encode(into: &out)
    return Array(out.readableBytesView)
}

/// Decodes exactly one packet from `bytes`, requiring every byte to be consumed.
func decodeOne(_ bytes: [UInt8]) throws -> MQTTPacket? {
    var input = buffer(bytes)
    let packet = try MQTTPacket.decode(from: &input)
    #expect(input.readableBytes == 0 || packet == nil)
    return packet
}

let samplePackets: [MQTTPacket] = [
    .connect(ConnectPacket(clientID: "bridge-1")),
    .connect(
        ConnectPacket(
            clientID: "bridge-ü",
            cleanSession: false,
            keepAliveSeconds: 15,
            will: .init(
                topic: "carebridge/status",
                payload: buffer(Array("offline".utf8)),
                qos: .atLeastOnce,
                retain: true
            ),
            username: "user",
            password: buffer([0x00, 0xFF, 0x10])
        )
    ),
    .connect(ConnectPacket(clientID: "", keepAliveSeconds: 0, username: "only-user")),
    .connack(ConnAckPacket(sessionPresent: true, returnCode: .accepted)),
    .connack(ConnAckPacket(sessionPresent: false, returnCode: .notAuthorized)),
    .connack(ConnAckPacket(returnCode: .init(rawValue: 0x42))),
    .publish(PublishPacket(topic: "a/b", payload: buffer([1, 2, 3]))),
    .publish(PublishPacket(topic: "a/b", payload: ByteBuffer(), qos: .atLeastOnce, retain: true, packetID: 1)),
    .publish(PublishPacket(topic: "x", payload: buffer([9]), qos: .atLeastOnce, dup: true, packetID: 65535)),
    .publish(PublishPacket(topic: "q2", payload: buffer([7]), qos: .exactlyOnce, packetID: 300)),
    .puback(packetID: 7),
    .subscribe(
        SubscribePacket(
            packetID: 10,
            subscriptions: [.init(topicFilter: "#", qos: .atLeastOnce), .init(topicFilter: "a/+/c", qos: .atMostOnce)]
        )
    ),
    .suback(SubAckPacket(packetID: 10, returnCodes: [.grantedQoS1, .failure, .grantedQoS0])),
    .pingreq,
    .pingresp,
    .disconnect,
]

@Suite struct MQTTPacketTests {
    @Test("every packet kind survives encode then decode", arguments: samplePackets)
    func roundTrips(packet: MQTTPacket) throws {
        let bytes = try wire(packet)
        #expect(try decodeOne(bytes) == packet)
    }

    @Test("every strict prefix of a packet asks for more bytes and consumes nothing", arguments: samplePackets)
    func prefixesNeedMoreData(packet: MQTTPacket) throws {
        let bytes = try wire(packet)
        for length in 0..<bytes.count {
            var input = buffer(Array(bytes.prefix(length)))
            #expect(try MQTTPacket.decode(from: &input) == nil, "prefix of \(length) bytes")
            #expect(input.readableBytes == length)
        }
    }

    @Test func encodesConnectWithWillAndCredentialsFieldByField() throws {
        let packet = MQTTPacket.connect(
            ConnectPacket(
                clientID: "cb",
                cleanSession: true,
                keepAliveSeconds: 60,
                will: .init(topic: "s", payload: buffer([0x30]), qos: .atLeastOnce, retain: true),
                username: "u",
                password: buffer([0x70])
            )
        )
        let expected: [UInt8] = [
            0x10, 26,  // CONNECT, remaining length 26
            0x00, 0x04, 0x4D, 0x51, 0x54, 0x54,  // "MQTT"
            0x04,  // protocol level 4 (3.1.1)
            0b1110_1110,  // user name, password, will retain, will QoS 1, will, clean session
            0x00, 0x3C,  // keep alive 60 s
            0x00, 0x02, 0x63, 0x62,  // client id "cb"
            0x00, 0x01, 0x73,  // will topic "s"
            0x00, 0x01, 0x30,  // will message "0"
            0x00, 0x01, 0x75,  // user name "u"
            0x00, 0x01, 0x70,  // password "p"
        ]
        #expect(try wire(packet) == expected)
    }

    @Test func encodesFixedSizePacketsAsTheSpecShowsThem() throws {
        #expect(try wire(.pingreq) == [0xC0, 0x00])
        #expect(try wire(.pingresp) == [0xD0, 0x00])
        #expect(try wire(.disconnect) == [0xE0, 0x00])
        #expect(try wire(.puback(packetID: 0x1234)) == [0x40, 0x02, 0x12, 0x34])
        #expect(
            try wire(.connack(ConnAckPacket(sessionPresent: true, returnCode: .badUsernameOrPassword))) == [
                0x20, 0x02, 0x01, 0x04,
            ]
        )
    }

    @Test func encodesPublishFlagsInTheFixedHeader() throws {
        let packet = MQTTPacket.publish(
            PublishPacket(topic: "t", payload: buffer([0xAA]), qos: .atLeastOnce, retain: true, dup: true, packetID: 5)
        )
        // 0x3 type, DUP 1, QoS 01, RETAIN 1 → 0x3B; topic "t"; id 5; payload AA.
        #expect(try wire(packet) == [0x3B, 0x06, 0x00, 0x01, 0x74, 0x00, 0x05, 0xAA])
    }

    @Test(
        "remaining length uses the fewest varint bytes at every boundary",
        arguments: [
            (0, [0x00] as [UInt8]), (127, [0x7F]), (128, [0x80, 0x01]), (16383, [0xFF, 0x7F]),
            (16384, [0x80, 0x80, 0x01]), (2_097_151, [0xFF, 0xFF, 0x7F]), (2_097_152, [0x80, 0x80, 0x80, 0x01]),
        ]
    )
    func remainingLengthBoundaries(length: Int, varint: [UInt8]) throws {
        // QoS 0 PUBLISH to "t": 3 bytes of topic, the rest payload. Length 0 is checked with PINGREQ instead.
        let packet: MQTTPacket =
            length == 0
            ? .pingreq
            : .publish(PublishPacket(topic: "t", payload: ByteBuffer(repeating: 0x5A, count: length - 3)))
        let bytes = try wire(packet)
        #expect(Array(bytes[1..<(1 + varint.count)]) == varint)
        #expect(bytes.count == 1 + varint.count + length)
        #expect(try decodeOne(bytes) == packet)
    }

    @Test func decodesTheLargestVarintValue() throws {
        var input = buffer([0x30, 0xFF, 0xFF, 0xFF, 0x7F])
        // Header complete, body missing: the decoder waits rather than failing.
        #expect(try MQTTPacket.decode(from: &input) == nil)
    }

    @Test func decoderVerifierAcceptsStreamsFedByteByByteAndInBatches() throws {
        var stream = ByteBuffer()
        for packet in samplePackets { try packet.encode(into: &stream) }
        let big = MQTTPacket.publish(PublishPacket(topic: "big", payload: ByteBuffer(repeating: 1, count: 300)))
        try big.encode(into: &stream)
        try ByteToMessageDecoderVerifier.verifyDecoder(
            inputOutputPairs: [(stream, samplePackets + [big])],
            decoderFactory: { MQTTPacketDecoder() }
        )
    }

    @Test func encoderAndDecoderWorkInAChannelPipeline() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([
            ByteToMessageHandler(MQTTPacketDecoder()), MessageToByteHandler(MQTTPacketEncoder()),
        ])
        try channel.writeOutbound(MQTTPacket.puback(packetID: 9))
        let written = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(Array(written.readableBytesView) == [0x40, 0x02, 0x00, 0x09])
        try channel.writeInbound(buffer([0xD0, 0x00, 0x40, 0x02]))
        #expect(try channel.readInbound(as: MQTTPacket.self) == .pingresp)
        #expect(try channel.readInbound(as: MQTTPacket.self) == nil)
        try channel.writeInbound(buffer([0x00, 0x09]))
        #expect(try channel.readInbound(as: MQTTPacket.self) == .puback(packetID: 9))
        _ = try channel.finish()
    }

    @Test func malformedInputFailsThePipelineWithATypedError() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(MQTTPacketDecoder()))
        #expect(throws: MQTTPacketError.unsupportedPacketType(raw: 15, offset: 0)) {
            try channel.writeInbound(buffer([0xF0, 0x00]))
        }
        _ = try? channel.finish()
    }
}

@Suite struct MQTTPacketErrorTests {
    @Test(
        "malformed packets are rejected with what and where",
        arguments: [
            ([0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01] as [UInt8], MQTTPacketError.malformedRemainingLength(offset: 1)),
            ([0x00, 0x00], .unsupportedPacketType(raw: 0, offset: 0)),
            ([0x60, 0x02, 0x00, 0x01], .invalidFixedHeaderFlags(packetType: .pubrel, flags: 0)),
            ([0x62, 0x02, 0x00, 0x01], .unsupportedPacketType(raw: 6, offset: 0)),
            ([0xC1, 0x00], .invalidFixedHeaderFlags(packetType: .pingreq, flags: 1)),
            ([0xC0, 0x01, 0x00], .remainingLengthMismatch(packetType: .pingreq, declared: 1, consumed: 0)),
            ([0x20, 0x03, 0x00, 0x00, 0x00], .remainingLengthMismatch(packetType: .connack, declared: 3, consumed: 2)),
            ([0x20, 0x02, 0x02, 0x00], .invalidConnAckFlags(2, offset: 2)),
            ([0x40, 0x02, 0x00, 0x00], .zeroPacketIdentifier(packetType: .puback, offset: 2)),
            ([0x36, 0x05, 0x00, 0x01, 0x74, 0x00, 0x01], .invalidQoS(field: "PUBLISH QoS", raw: 3, offset: 0)),
            ([0x38, 0x03, 0x00, 0x01, 0x74], .invalidFixedHeaderFlags(packetType: .publish, flags: 8)),
            ([0x30, 0x04, 0x00, 0x02, 0xC3, 0x28], .invalidUTF8(field: "topic name", offset: 4)),
            ([0x30, 0x03, 0x00, 0x01, 0x00], .invalidUTF8(field: "topic name", offset: 4)),
            ([0x30, 0x03, 0x00, 0x01, 0x23], .invalidTopicName("#")),
            (
                [0x30, 0x03, 0x00, 0x05, 0x61],
                .insufficientBytes(field: "topic name", expected: 5, actual: 1, offset: 4)
            ),
            (
                [0x32, 0x03, 0x00, 0x01, 0x74],
                .insufficientBytes(field: "packet identifier", expected: 2, actual: 0, offset: 5)
            ),
            ([0x82, 0x02, 0x00, 0x01], .emptyPayload(packetType: .subscribe)),
            (
                [0x80, 0x06, 0x00, 0x01, 0x00, 0x01, 0x23, 0x01],
                .invalidFixedHeaderFlags(packetType: .subscribe, flags: 0)
            ),
            ([0x82, 0x06, 0x00, 0x01, 0x00, 0x01, 0x23, 0x04], .invalidQoS(field: "requested QoS", raw: 4, offset: 7)),
            (
                [0x10, 0x0C, 0x00, 0x06, 0x4D, 0x51, 0x49, 0x73, 0x64, 0x70, 0x03, 0x02, 0x00, 0x3C],
                .invalidProtocolName("MQIsdp", offset: 2)
            ),
            (
                [0x10, 0x0A, 0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x03, 0x02, 0x00, 0x3C],
                .unsupportedProtocolLevel(3, offset: 8)
            ),
            (
                [0x10, 0x0A, 0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x04, 0x03, 0x00, 0x3C],
                .invalidConnectFlags(3, offset: 9)
            ),
            (
                [0x10, 0x0A, 0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x04, 0x42, 0x00, 0x3C],
                .invalidConnectFlags(0x42, offset: 9)
            ),
            (
                [0x10, 0x0A, 0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x04, 0x22, 0x00, 0x3C],
                .invalidConnectFlags(0x22, offset: 9)
            ),
            (
                [0x10, 0x0A, 0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x04, 0x1E, 0x00, 0x3C],
                .invalidQoS(field: "will QoS", raw: 3, offset: 9)
            ),
        ]
    )
    func rejectsMalformedPacket(bytes: [UInt8], expected: MQTTPacketError) {
        var input = buffer(bytes)
        #expect(throws: expected) { try MQTTPacket.decode(from: &input) }
    }

    @Test func refusesToEncodeWhatTheWireCannotCarry() {
        var out = ByteBuffer()
        let longTopic = String(repeating: "a", count: 65_536)
        #expect(throws: MQTTPacketError.fieldTooLong(field: "topic name", length: 65_536)) {
            try MQTTPacket.publish(PublishPacket(topic: longTopic, payload: ByteBuffer())).encode(into: &out)
        }
        #expect(throws: MQTTPacketError.invalidTopicName("a/+")) {
            try MQTTPacket.publish(PublishPacket(topic: "a/+", payload: ByteBuffer())).encode(into: &out)
        }
        #expect(throws: MQTTPacketError.zeroPacketIdentifier(packetType: .publish, offset: 0)) {
            try MQTTPacket.publish(PublishPacket(topic: "a", payload: ByteBuffer(), qos: .atLeastOnce)).encode(
                into: &out
            )
        }
        #expect(throws: MQTTPacketError.invalidConnectFlags(0x40, offset: 0)) {
            try MQTTPacket.connect(ConnectPacket(clientID: "c", password: buffer([1]))).encode(into: &out)
        }
        #expect(out.readableBytes == 0)
    }
}
