import BridgeCore
import BridgeFoundation

/// The Eufy P2 / P2 Pro handshake as a pure state machine run inside a ``SessionMachine`` step: without it the
/// scale sends no weight on FFF2.
///
/// 1. The bridge writes C0: a random 15-character client id, encrypted (``EufyCipher``), in segments
///    (``EufySegments``), one segment every ``EufyHandshake/gap`` seconds.
/// 2. The scale answers C1 on ``EufyHandshake/answers``: its own id, encrypted the same way.
/// 3. The bridge writes C2: `"<client id>_<scale id>"`, encrypted.
/// 4. The scale answers C3: `C3 01 00 01 <status> <XOR>`; status 00 is success.
///
/// Every answer is checked (segment checksums, order, length, decryption, status) and any fault stops the session
/// with an ``EufyHandshakeError`` naming it; the transport then lets the scale go, so no value of an
/// unauthenticated link is asked for. It writes only to ``EufyHandshake/write``.
public struct EufyHandshakeSession: Sendable {
    public enum Status: Sendable, Hashable {
        case running
        case finished
        case failed(String)
    }

    private enum Stage: Sendable, Hashable {
        case c0, c1, c2, c3
    }

    public let step: EufyHandshake
    public private(set) var status: Status = .running
    /// The scale's id from its C1, once it arrived.
    public private(set) var scaleID: String?

    private let address: String?
    private let clientID: String
    private var cipher: EufyCipher?
    private var stage = Stage.c0
    private var pending: [[UInt8]] = []
    private var write: Int?
    private var timer: Int?
    private var assembler = EufySegments.Assembler(prefix: 0xC1)
    private var verdict: UInt8?

    /// - Parameters:
    ///   - address: the scale's address (the key is derived from it).
    ///   - clientID: the bridge's id for this session; its first 15 characters are sent, as the peers do.
    public init(step: EufyHandshake, address: String?, clientID: String) {
        self.step = step
        self.address = address
        self.clientID = String(clientID.prefix(15))
    }

    /// The stage being waited on, for messages.
    public var currentStep: String {
        let stage =
            switch stage {
            case .c0: "writing C0"
            case .c1: "waiting for C1"
            case .c2: "writing C2"
            case .c3: "waiting for C3"
            }
        return "eufy handshake: " + stage
    }

    /// Writes the first C0 segment. `ids` is the caller's action-id counter.
    public mutating func start(ids: inout Int) -> [SessionAction] {
        do throws(EufyHandshakeError) {
            guard let address else { throw .noAddress }
            let cipher = try EufyCipher(address: address)
            self.cipher = cipher
            pending = try EufySegments.frames(prefix: 0xC0, message: cipher.seal(clientID))
        } catch {
            return fail(error)
        }
        return sendNext(ids: &ids)
    }

    public mutating func handle(_ input: SessionInput, ids: inout Int) -> [SessionAction] {
        guard status == .running else { return [] }
        switch input {
        case .value(let value):
            guard value.characteristic == step.answers, value.delivery != .read else { return [] }
            return receive(value.bytes, ids: &ids)
        case .completed(let id):
            guard id == write else { return [] }
            write = nil
            if pending.isEmpty { return finishWrites(ids: &ids) }
            let id = ids
            ids += 1
            timer = id
            return [.startTimer(id: id, seconds: step.gap)]
        case .failed(let id, let message):
            guard id == write else { return [] }
            status = .failed("eufy handshake: the \(stage == .c0 ? "C0" : "C2") write failed: \(message)")
            return []
        case .timer(let id):
            guard id == timer else { return [] }
            timer = nil
            switch stage {
            case .c0, .c2: return sendNext(ids: &ids)
            case .c1: return fail(.noAnswer(expected: "C1", seconds: step.timeout))
            case .c3: return fail(.noAnswer(expected: "C3", seconds: step.timeout))
            }
        case .disconnected:
            status = .failed("eufy handshake: the link went down while \(currentStep.dropFirst(16))")
            return []
        }
    }

    // MARK: - Steps

    private mutating func fail(_ error: EufyHandshakeError) -> [SessionAction] {
        status = .failed("eufy handshake: \(error)")
        return []
    }

    private mutating func sendNext(ids: inout Int) -> [SessionAction] {
        guard !pending.isEmpty else { return [] }
        let id = ids
        ids += 1
        write = id
        return [.write(id: id, step.write, pending.removeFirst(), withResponse: true)]
    }

    /// The last segment of a message was acknowledged: wait for the answer (or act on one that overtook it).
    private mutating func finishWrites(ids: inout Int) -> [SessionAction] {
        switch stage {
        case .c0:
            stage = .c1
            if scaleID != nil { return sendC2(ids: &ids) }
        case .c2:
            stage = .c3
            if let verdict { return conclude(verdict) }
        case .c1, .c3:
            return []
        }
        let id = ids
        ids += 1
        timer = id
        return [.startTimer(id: id, seconds: step.timeout)]
    }

    private mutating func receive(_ bytes: [UInt8], ids: inout Int) -> [SessionAction] {
        switch bytes.first {
        case 0xC1 where scaleID == nil:
            do throws(EufyHandshakeError) {
                guard let message = try assembler.take(bytes), let cipher else { return [] }
                scaleID = try cipher.open(message, prefix: 0xC1)
            } catch {
                return fail(error)
            }
            return stage == .c1 ? sendC2(ids: &ids) : []
        case 0xC3 where stage == .c2 || stage == .c3:
            guard bytes.count >= 6 else { return fail(.shortSegment(prefix: 0xC3, length: bytes.count)) }
            let computed = EufySegments.xor(bytes.dropLast())
            guard computed == bytes[bytes.count - 1] else {
                return fail(
                    .checksum(prefix: 0xC3, segment: Int(bytes[2]), found: bytes[bytes.count - 1], computed: computed)
                )
            }
            verdict = bytes[4]
            return stage == .c3 ? conclude(bytes[4]) : []
        default:
            return []
        }
    }

    private mutating func sendC2(ids: inout Int) -> [SessionAction] {
        guard let cipher, let scaleID else { return [] }
        stage = .c2
        timer = nil
        do throws(EufyHandshakeError) {
            pending = try EufySegments.frames(prefix: 0xC2, message: cipher.seal("\(clientID)_\(scaleID)"))
        } catch {
            return fail(error)
        }
        return sendNext(ids: &ids)
    }

    private mutating func conclude(_ verdict: UInt8) -> [SessionAction] {
        timer = nil
        guard verdict == 0 else { return fail(.refused(status: verdict)) }
        status = .finished
        return []
    }
}
