public import BridgeCore
import BridgeFoundation

/// The conversation that downloads a Viatom oximeter's overnight recordings (Wellue O2Ring, Checkme O2), as a
/// pure state machine run inside a ``SessionMachine`` step (the profile's `viatom` section): ask for the device
/// information (its `FileList`), then for each file not downloaded before open it, read it block by block until
/// the size the open answered has arrived, and close it; finally, when the profile asks, one live reading.
///
/// Read-only: it never deletes a file, writes no settings and does not set the clock. The files downloaded are
/// kept in the session variable ``ViatomDownload/cursorVariable`` (only names the device still lists), so the
/// next session skips them; like every session variable it is saved only when the whole session finished, so a
/// download that breaks off reads its files again next time and the store drops the samples it already has
/// (a record's id is its device time and bytes). A response whose CRC-8 fails, or no response in time, sends the
/// request again, up to ``ViatomDownload/retries`` times; then the session fails saying which request and why.
public struct ViatomFileSession: SessionProcedure {
    enum Request: Sendable, Hashable {
        case info
        case open(String)
        case read(String, block: Int)
        case close(String)
        case live

        var command: ViatomPacket.Command {
            switch self {
            case .info: .info
            case .open: .fileOpen
            case .read: .fileRead
            case .close: .fileClose
            case .live: .readSensors
            }
        }

        var description: String {
            switch self {
            case .info: "device information request"
            case .open(let name): "open of file \(name)"
            case .read(let name, let block): "read of file \(name) block \(block)"
            case .close(let name): "close of file \(name)"
            case .live: "live reading request"
            }
        }
    }

    public let download: ViatomDownload
    public private(set) var variables: SessionVariables
    public private(set) var status: SessionProcedureStatus = .running

    private var current: Request?
    private var attempts = 0
    private var timer: Int?
    private var writes: Set<Int> = []
    private var assembler = ViatomResponseAssembler()
    /// What the device lists, and what is still to read.
    private var listed: [String] = []
    private var waiting: [String] = []
    private var downloaded: [String]
    /// The open file's size and the bytes received of it.
    private var size = 0
    private var received = 0

    public init(download: ViatomDownload, variables: SessionVariables) {
        self.download = download
        self.variables = variables
        downloaded = ViatomDownload.names(in: variables[ViatomDownload.cursorVariable])
    }

    public var currentStep: String { "viatom files: " + (current?.description ?? "done") }

    public mutating func start(ids: inout Int) -> [SessionAction] {
        send(.info, ids: &ids)
    }

    public mutating func handle(_ input: SessionInput, ids: inout Int) -> [SessionAction] {
        guard status == .running else { return [] }
        if let actions = writeOrLink(input, writes: \.writes, during: current?.description, fail: { $0.fail($1) }) {
            return actions
        }
        switch input {
        case .value(let value):
            guard value.characteristic == download.notify, let bytes = assembler.add(value.bytes) else { return [] }
            return receive(bytes, ids: &ids)
        case .timer(let id):
            guard id == timer, let request = current else { return [] }
            return retry(request, because: "no answer within \(SessionMachine.seconds(download.timeout))", ids: &ids)
        case .completed, .failed, .disconnected:
            return []
        }
    }

    // MARK: - Requests

    private mutating func fail(_ reason: String) -> [SessionAction] {
        status = .failed("\(download.model): \(reason)")
        current = nil
        return []
    }

    private mutating func retry(_ request: Request, because reason: String, ids: inout Int) -> [SessionAction] {
        guard attempts <= download.retries else {
            return fail("\(request.description): \(reason), after \(attempts) attempts")
        }
        return send(request, ids: &ids, again: true)
    }

    private mutating func send(_ request: Request, ids: inout Int, again: Bool = false) -> [SessionAction] {
        current = request
        attempts = again ? attempts + 1 : 1
        assembler.reset()
        let packet: [UInt8] =
            switch request {
            case .open(let name): ViatomPacket.request(.fileOpen, data: Array(name.utf8) + [0])
            case .read(_, let block): ViatomPacket.request(.fileRead, block: UInt16(truncatingIfNeeded: block))
            default: ViatomPacket.request(request.command)
            }
        let write = ids
        let wait = ids + 1
        ids += 2
        writes.insert(write)
        timer = wait
        return [
            .write(id: write, download.write, packet, withResponse: true),
            .startTimer(id: wait, seconds: download.timeout),
        ]
    }

    /// The next file to open, the live reading, or the end.
    private mutating func next(ids: inout Int) -> [SessionAction] {
        if !waiting.isEmpty { return send(.open(waiting.removeFirst()), ids: &ids) }
        if download.liveReading, current != .live { return send(.live, ids: &ids) }
        current = nil
        let kept = listed.filter(downloaded.contains)
        variables[ViatomDownload.cursorVariable] = kept.isEmpty ? nil : ViatomDownload.cursor(kept)
        status = .finished(variables)
        return []
    }

    // MARK: - Responses

    private mutating func receive(_ bytes: [UInt8], ids: inout Int) -> [SessionAction] {
        guard let request = current else { return [] }
        let packet: ViatomPacket
        do {
            packet = try ViatomPacket(response: bytes)
        } catch {
            return retry(request, because: "response refused (\(error.description))", ids: &ids)
        }
        guard packet.status == 0 else {
            return fail("\(request.description): the device answered with error status \(packet.status)")
        }
        switch request {
        case .info:
            let info: ViatomDeviceInfo
            do {
                info = try ViatomDeviceInfo(data: packet.data)
            } catch {
                return fail(error.description)
            }
            listed = info.files
            waiting = info.files.filter { !downloaded.contains($0) }
            return next(ids: &ids)
        case .open(let name):
            guard packet.data.count >= 4 else {
                return fail("open of file \(name): the answer has \(packet.data.count) bytes, not a 4-byte size")
            }
            size = packet.data.prefix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
            received = 0
            return size == 0 ? send(.close(name), ids: &ids) : send(.read(name, block: 0), ids: &ids)
        case .read(let name, let block):
            guard !packet.data.isEmpty else {
                return fail("read of file \(name) block \(block): no data with \(size - received) bytes still to come")
            }
            received += packet.data.count
            return received >= size ? send(.close(name), ids: &ids) : send(.read(name, block: block + 1), ids: &ids)
        case .close(let name):
            if !downloaded.contains(name) { downloaded.append(name) }
            return next(ids: &ids)
        case .live:
            return next(ids: &ids)
        }
    }
}
