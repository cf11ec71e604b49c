public import BridgeCore
public import BridgeFoundation
public import Foundation
import GATTDecoding

/// What happened that a running session must know about, fed by the transport.
public enum SessionInput: Sendable, Hashable {
    /// A value arrived (notification, indication, or the result of a read). The value of a descriptor read
    /// (``SessionAction/readDescriptors(id:characteristic:descriptor:)``) comes as a read of the descriptor's UUID.
    case value(CharacteristicValue)
    /// The subscribe/read/write action with this id succeeded.
    case completed(action: Int)
    /// The action with this id failed (the characteristic is missing, the device refused).
    case failed(action: Int, message: String)
    /// The timer with this id ran out.
    case timer(Int)
    /// The link went down.
    case disconnected
}

/// What the transport must do for a running session.
public enum SessionAction: Sendable, Hashable {
    case subscribe(id: Int, BluetoothUUID)
    case read(id: Int, BluetoothUUID)
    /// Read every descriptor `descriptor` of characteristic `characteristic` (a GHS sensor keeps one Observation
    /// Schedule descriptor per observation type on Health Sensor Features): each value as `.value` of a read of
    /// `descriptor`, then `.completed`; `.failed` when the characteristic has no such descriptor.
    case readDescriptors(id: Int, characteristic: BluetoothUUID, descriptor: BluetoothUUID)
    case write(id: Int, BluetoothUUID, [UInt8], withResponse: Bool)
    /// Report `.timer(id)` after this many seconds (timers are never cancelled; stale ones are ignored).
    case startTimer(id: Int, seconds: Double)
    /// Every step ran: save these persisted variables (nil removes one).
    case finished(persist: [String: SessionValue?])
    /// The session stopped at a step; nothing is saved.
    case failed(reason: String)
    /// One more value of the script's progress characteristic since the last write, of `total` expected.
    case progress(done: Int, total: Int)
    /// A stored-record download started (the write just asked for, to one of the script's
    /// ``SessionScript/controlPoints``, requests stored records) or ended (the device's final response arrived):
    /// for the pipeline, as a ``TransportEvent/Kind/download(_:)`` event.
    case download(RecordDownload)
}

/// Runs a ``SessionScript``: a state machine driven by ``SessionInput``s that answers with ``SessionAction``s.
///
/// It does no I/O and reads no clock (the caller passes `now`), so the live transport, the replay transport
/// and the tests drive it alike. One action is outstanding at a time; values that arrive while a write is
/// still being acknowledged are kept, so an awaited response that overtakes its write's reply is not missed.
public struct SessionMachine: Sendable {
    public enum Status: Sendable, Hashable {
        case notStarted, running, finished
        case failed(String)
    }

    public let script: SessionScript
    /// The zone the device clock keeps (times written by templates).
    public let timeZone: TimeZone
    /// The device's Bluetooth address (a Eufy P2 handshake derives its key from it).
    public let device: String?
    /// This session's random id for handshakes that send one (a Eufy P2's client id).
    public let nonce: String
    public private(set) var variables: SessionVariables
    public private(set) var status: Status = .notStarted

    private struct Frame: Sendable {
        var steps: [SessionStep]
        var index = 0
        var loop: SessionStep.Repeat?
        var deadline: Int?
    }

    private enum Waiting: Sendable {
        case action(id: Int, step: SessionStep)
        case value(SessionStep.Await, timer: Int)
        case delay(timer: Int)
        case pause(timer: Int)
        /// A compiled procedure (an Omron memory-map or a Viatom file download, a Eufy handshake) is running and gets
        /// every input.
        case procedure(any SessionProcedure)
    }

    private var frames: [Frame] = []
    private var waiting: Waiting?
    private var nextID = 1
    /// Values not yet consumed by an await, since the last write (bounded).
    private var recent: [CharacteristicValue] = []
    static let recentLimit = 512
    /// Progress values counted since the last write.
    private var counted = 0

    /// - Parameters:
    ///   - script: the profile's session.
    ///   - variables: the device's persisted variables (and any others the caller provides).
    ///   - timeZone: the zone device clocks keep.
    ///   - device: the device's Bluetooth address, for steps that need it.
    ///   - nonce: a fresh random id for handshakes that send one (fixed in tests).
    public init(
        script: SessionScript,
        variables: SessionVariables = [:],
        timeZone: TimeZone,
        device: String? = nil,
        nonce: String = UUID().uuidString.lowercased()
    ) {
        self.script = script
        var variables = variables
        if script.persistPer != nil {
            // This user's own saved values (none yet: none, not another user's).
            for name in script.persist { variables[name] = variables[script.persistedName(name, in: variables)] }
        }
        self.variables = variables
        self.timeZone = timeZone
        self.device = device
        self.nonce = nonce
    }

    /// Starts the first step.
    public mutating func start(now: Date) -> [SessionAction] {
        guard status == .notStarted else { return [] }
        status = .running
        frames = [Frame(steps: script.steps)]
        var actions: [SessionAction] = []
        advance(now: now, into: &actions)
        return actions
    }

    /// Feeds one input; returns what to do next.
    public mutating func handle(_ input: SessionInput, now: Date) -> [SessionAction] {
        guard status == .running else { return [] }
        var actions: [SessionAction] = []
        switch input {
        case .value(let value):
            receive(value, now: now, into: &actions)
        case .completed, .failed, .timer:
            if case .procedure(let procedure) = waiting {
                feed(procedure, input, now: now, into: &actions)
                return actions
            }
        default:
            break
        }
        switch input {
        case .value:
            break
        case .completed(let id):
            guard case .action(id, _) = waiting else { return [] }
            waiting = nil
            advance(now: now, into: &actions)
        case .failed(let id, let message):
            guard case .action(id, let step) = waiting else { return [] }
            if case .read(let read) = step, read.optional {
                waiting = nil
                advance(now: now, into: &actions)
            } else {
                fail("\(step): \(message)", into: &actions)
            }
        case .timer(let id):
            timer(id, now: now, into: &actions)
        case .disconnected:
            fail("the link went down \(currentStep.map { "at step '\($0)'" } ?? "")", into: &actions)
        }
        return actions
    }

    /// The step being waited on, for messages.
    public var currentStep: String? {
        switch waiting {
        case .action(_, let step): step.description
        case .value(let wait, _): SessionStep.await(wait).description
        case .delay: "delay"
        case .pause: frames.last?.loop.map { SessionStep.repeatUntil($0).description }
        case .procedure(let procedure): procedure.currentStep
        case nil: nil
        }
    }

    // MARK: - Inputs

    private mutating func receive(_ value: CharacteristicValue, now: Date, into actions: inout [SessionAction]) {
        if script.controlPoint(value.characteristic)?.endsRecordReport(value.bytes) == true {
            actions.append(.download(.ended))
        }
        for rule in script.captures where rule.characteristic == value.characteristic && rule.when.matches(value.bytes)
        {
            rule.capture.apply(to: &variables, from: value.bytes)
        }
        if let progress = script.progress, progress.characteristic == value.characteristic,
            progress.when.matches(value.bytes), let total = variables[progress.total]?.integer
        {
            counted += 1
            actions.append(.progress(done: counted, total: total))
        }
        if case .procedure(let procedure) = waiting {
            feed(procedure, .value(value), now: now, into: &actions)
            return
        }
        if case .action(_, .read(let read)) = waiting, (read.descriptor ?? read.characteristic) == value.characteristic,
            value.delivery == .read
        {
            for capture in read.capture { capture.apply(to: &variables, from: value.bytes) }
            return
        }
        if let index = frames.lastIndex(where: { $0.loop?.until.matches(value) == true }) {
            frames.removeSubrange(index...)
            waiting = nil
            advance(now: now, into: &actions)
            return
        }
        if case .value(let wait, _) = waiting, Self.matches(wait, value) {
            for capture in wait.capture { capture.apply(to: &variables, from: value.bytes) }
            waiting = nil
            advance(now: now, into: &actions)
            return
        }
        if recent.count >= Self.recentLimit { recent.removeFirst() }
        recent.append(value)
    }

    private mutating func timer(_ id: Int, now: Date, into actions: inout [SessionAction]) {
        switch waiting {
        case .value(let wait, id):
            if wait.optional {
                waiting = nil
                advance(now: now, into: &actions)
            } else {
                fail(
                    "no value matching '\(wait.pattern)' on \(wait.characteristic) within \(Self.seconds(wait.timeout))",
                    into: &actions
                )
            }
            return
        case .delay(id):
            waiting = nil
            advance(now: now, into: &actions)
            return
        case .pause(id):
            waiting = nil
            frames[frames.count - 1].index = 0
            advance(now: now, into: &actions)
            return
        default:
            break
        }
        if let frame = frames.first(where: { $0.deadline == id }), let loop = frame.loop {
            fail(
                "no value matching '\(loop.until.pattern)' on \(loop.until.characteristic) within "
                    + Self.seconds(loop.timeout ?? 0),
                into: &actions
            )
        }
    }

    static func matches(_ wait: SessionStep.Await, _ value: CharacteristicValue) -> Bool {
        value.characteristic == wait.characteristic && wait.pattern.matches(value.bytes)
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// Hands an input to the running procedure and follows its status.
    private mutating func feed(
        _ procedure: any SessionProcedure,
        _ input: SessionInput,
        now: Date,
        into actions: inout [SessionAction]
    ) {
        var procedure = procedure
        var ids = nextID
        let produced = procedure.handle(input, ids: &ids)
        nextID = ids
        settle(procedure, produced, now: now, into: &actions)
    }

    private mutating func settle(
        _ procedure: any SessionProcedure,
        _ produced: [SessionAction],
        now: Date,
        into actions: inout [SessionAction]
    ) {
        switch procedure.status {
        case .running:
            waiting = .procedure(procedure)
            actions += produced
        case .finished(let updated):
            variables = updated
            waiting = nil
            advance(now: now, into: &actions)
        case .failed(let reason):
            fail(reason, into: &actions)
        }
    }

    private mutating func startProcedure(
        _ procedure: some SessionProcedure,
        now: Date,
        into actions: inout [SessionAction]
    ) {
        var procedure = procedure
        var ids = nextID
        let produced = procedure.start(ids: &ids)
        nextID = ids
        recent.removeAll()
        settle(procedure, produced, now: now, into: &actions)
    }

    // MARK: - Steps

    private mutating func newID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    private mutating func fail(_ reason: String, into actions: inout [SessionAction]) {
        status = .failed(reason)
        waiting = nil
        frames = []
        actions.append(.failed(reason: reason))
    }

    /// Runs steps until one has to wait (or the script ends).
    private mutating func advance(now: Date, into actions: inout [SessionAction]) {
        while status == .running, waiting == nil {
            guard let top = frames.indices.last else {
                status = .finished
                var persisted: [String: SessionValue?] = [:]
                for name in script.persist {
                    persisted[script.persistedName(name, in: variables)] = .some(variables[name])
                }
                actions.append(.finished(persist: persisted))
                return
            }
            guard frames[top].index < frames[top].steps.count else {
                if let loop = frames[top].loop {
                    let id = newID()
                    waiting = .pause(timer: id)
                    actions.append(.startTimer(id: id, seconds: loop.every))
                } else {
                    frames.removeLast()
                }
                continue
            }
            let step = frames[top].steps[frames[top].index]
            frames[top].index += 1
            run(step, now: now, into: &actions)
        }
    }

    private mutating func run(_ step: SessionStep, now: Date, into actions: inout [SessionAction]) {
        switch step {
        case .subscribe(let uuid):
            let id = newID()
            waiting = .action(id: id, step: step)
            actions.append(.subscribe(id: id, uuid))
        case .read(let read):
            let id = newID()
            waiting = .action(id: id, step: step)
            if let descriptor = read.descriptor {
                actions.append(.readDescriptors(id: id, characteristic: read.characteristic, descriptor: descriptor))
            } else {
                actions.append(.read(id: id, read.characteristic))
            }
        case .write(let write):
            let bytes: [UInt8]
            do {
                bytes = try write.value.render(variables: variables, now: now, timeZone: timeZone)
            } catch {
                fail("\(step): \(error)", into: &actions)
                return
            }
            recent.removeAll()
            counted = 0
            let id = newID()
            waiting = .action(id: id, step: step)
            actions.append(.write(id: id, write.characteristic, bytes, withResponse: write.withResponse))
            if script.controlPoint(write.characteristic)?.requestsStoredRecords(bytes) == true {
                actions.append(.download(.started))
            }
        case .await(let wait):
            if let index = recent.firstIndex(where: { Self.matches(wait, $0) }) {
                for capture in wait.capture { capture.apply(to: &variables, from: recent[index].bytes) }
                recent.removeFirst(index + 1)
                return
            }
            let id = newID()
            waiting = .value(wait, timer: id)
            actions.append(.startTimer(id: id, seconds: wait.timeout))
        case .delay(let seconds):
            let id = newID()
            waiting = .delay(timer: id)
            actions.append(.startTimer(id: id, seconds: seconds))
        case .repeatUntil(let loop):
            var frame = Frame(steps: loop.steps, loop: loop)
            if let timeout = loop.timeout {
                let id = newID()
                frame.deadline = id
                actions.append(.startTimer(id: id, seconds: timeout))
            }
            frames.append(frame)
        case .branch(let condition, let then, let otherwise):
            frames.append(Frame(steps: condition.holds(for: variables) ? then : otherwise))
        case .omronMemoryMap(let map):
            startProcedure(OmronMemorySession(map: map, variables: variables), now: now, into: &actions)
        case .eufyHandshake(let handshake):
            startProcedure(
                EufyHandshakeProcedure(
                    session: EufyHandshakeSession(step: handshake, address: device, clientID: nonce),
                    variables: variables
                ),
                now: now,
                into: &actions
            )
        case .viatomFiles(let download):
            startProcedure(ViatomFileSession(download: download, variables: variables), now: now, into: &actions)
        case .set(let assignments):
            let before = variables
            for (name, assignment) in assignments {
                switch assignment {
                case .value(let value): variables[name] = value
                case .variable(let other): variables[name] = before[other]
                case .remove: variables[name] = nil
                }
            }
        }
    }
}
