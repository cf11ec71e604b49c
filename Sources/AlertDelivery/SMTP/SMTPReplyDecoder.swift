import NIOCore

/// Cuts the relay's byte stream into ``SMTPReply``s: lines end with CRLF (a bare LF is accepted), a line of
/// a multi-line reply has `-` after its code, the last one a space (or nothing).
struct SMTPReplyDecoder: ByteToMessageDecoder {
    typealias InboundOut = SMTPReply

    /// The longest line accepted (RFC 5321 §4.5.3.1.5 allows 512 octets for a reply line).
    static let maximumLineLength = 4096

    private var lines: [String] = []
    private var code: Int?

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > Self.maximumLineLength {
                throw SMTPError(.protocolViolation, "the relay sent a line longer than \(Self.maximumLineLength) bytes")
            }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        var line = buffer.readString(length: length) ?? ""
        buffer.moveReaderIndex(forwardBy: 1)
        if line.hasSuffix("\r") { line.removeLast() }
        let bytes = Array(line.utf8)
        guard bytes.count >= 3, let lineCode = Int(String(decoding: bytes[0..<3], as: UTF8.self)),
            (200..<600).contains(lineCode)
        else {
            throw SMTPError(.protocolViolation, "the relay's answer is not an SMTP reply: \(line.prefix(80))")
        }
        if let code, code != lineCode {
            throw SMTPError(.protocolViolation, "the relay changed the reply code within one reply: \(line.prefix(80))")
        }
        code = lineCode
        let text = bytes.count > 4 ? String(decoding: bytes[4...], as: UTF8.self) : ""
        lines.append(text)
        if bytes.count > 3, bytes[3] == UInt8(ascii: "-") { return .continue }
        context.fireChannelRead(wrapInboundOut(SMTPReply(code: lineCode, lines: lines)))
        lines = []
        code = nil
        return .continue
    }

    mutating func decodeLast(
        context: ChannelHandlerContext,
        buffer: inout ByteBuffer,
        seenEOF: Bool
    ) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue, buffer.readableBytes > 0 {}
        return .needMoreData
    }
}
