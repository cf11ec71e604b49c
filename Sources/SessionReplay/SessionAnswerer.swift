import BridgeCore
import BridgeFoundation
import DeviceSessions
import Foundation
import GATTDecoding

/// Makes a recording answer the bridge's session steps: the profile's ``SessionMachine`` runs against the
/// recorded device, and what the recording shows the device sending after a `write` is delivered only when
/// the bridge wrote the same bytes.
///
/// A capture of another client (``capturesAnotherClient``: a recording whose header names a `source` other than
/// the bridge, such as an imported HCI snoop log of a vendor's app) asked in its own way, so it is not held to
/// byte-for-byte writes: the records it shows the device sending in answer to the recorded client's Record
/// Access Control Point requests answer the bridge's own RACP requests semantically (``CapturedRecords``), every
/// other write of the bridge is taken as accepted, the recorded client's writes are not replayed, and what the
/// device sent on its own is delivered as recorded. ``notes`` says which answers were synthesised.
///
/// Pure: recorded events in, events and problems out, in recorded time (timers fire at `event time +
/// seconds`). Session variables live in memory for the length of the recording, so a recording replays the
/// same however often it is replayed and whatever the store holds.
struct SessionAnswerer {
    let policy: any ConnectionPolicy
    let timeZone: TimeZone
    /// The recording is a capture of another client: answer standard procedures from what it shows.
    var capturesAnotherClient = false
    /// What a capture's replay synthesised and what it delivered as recorded, for the replay summary.
    private(set) var notes: [RecordingProblem] = []

    private var plans: [String: ConnectionPlan] = [:]
    private var running: [String: Running] = [:]
    /// Persisted variables by `device|profile`.
    private(set) var memory: [String: SessionVariables] = [:]
    /// What the bridge knew of each device before the recording started (the header's `sessionVariables`:
    /// a consent code the user entered with `carebridge devices consent`).
    var seeds: [String: SessionVariables] = [:]
    /// Device addresses in order of their sessions, so timers fire in a stable order.
    private var order: [String] = []

    private struct Running {
        var machine: SessionMachine
        var profile: String
        /// The session's writes the recording has not shown yet; `startsDownload` when the machine said the write
        /// starts a stored-record download (delivered right after the recorded write).
        var writes: [(id: Int, write: CharacteristicWrite, startsDownload: Bool)] = []
        var reads: [(id: Int, uuid: BluetoothUUID)] = []
        var timers: [(id: Int, deadline: Date)] = []
        /// Why the recorded device's answers are no longer delivered.
        var diverged: String?
        var withheld = 0
        /// A capture of another client: the records it shows, per Record Access Control Point.
        var records: [BluetoothUUID: CapturedRecords] = [:]
        /// A capture: the recorded client's writes (not replayed) and the values delivered as recorded.
        var recordedWrites = 0
        var recordedValues = 0
    }

    enum Output: Sendable {
        case event(TransportEvent, RecordingLocation)
        case problem(RecordingProblem)
    }

    init(policy: any ConnectionPolicy, timeZone: TimeZone) {
        self.policy = policy
        self.timeZone = timeZone
    }

    /// What to deliver for one recorded event: the event (unless it is withheld) and any divergence problems.
    mutating func process(_ recorded: RecordedEvent) -> [Output] {
        let event = recorded.event
        let device = event.device
        var out: [Output] = []
        fireTimers(upTo: event.time, location: recorded.location, into: &out)
        switch event.kind {
        case .advertisement(let advertisement):
            if let plan = policy.plan(forDevice: device, advertisement: advertisement) { plans[device] = plan }
            out.append(.event(event, recorded.location))
        case .connected:
            close(device, at: event.time, location: recorded.location, into: &out)
            out.append(.event(event, recorded.location))
        case .servicesDiscovered(let services):
            out.append(.event(event, recorded.location))
            if plans[device] == nil,
                let plan = policy.plan(
                    forDevice: device,
                    advertisement: Advertisement(serviceUUIDs: services.keys.sorted())
                )
            {
                plans[device] = plan
            }
            start(device, at: event.time, location: recorded.location, into: &out)
            if capturesAnotherClient {
                answerCapturedWrites(device, at: event.time, location: recorded.location, into: &out)
            }
        case .written(let write):
            guard var state = running[device] else {
                out.append(.event(event, recorded.location))
                return out
            }
            if capturesAnotherClient {
                // The recorded client's write: not the bridge's, so not replayed; a request for stored records
                // makes the device's answers the records it holds.
                state.recordedWrites += 1
                if racp(device, write.characteristic) {
                    state.records[write.characteristic, default: .init()].recordedRequest(write.bytes)
                }
                running[device] = state
                return out
            }
            if state.diverged != nil {
                state.withheld += 1
                running[device] = state
                return out
            }
            guard let expected = state.writes.first else {
                let step = state.machine.currentStep.map { "'\($0)'" } ?? "its end"
                let message =
                    "divergence: the recording shows a write of \(Self.text(write)) that the bridge did not make "
                    + "(its session was at \(step)); the recorded device's answers from here on are not delivered"
                state.diverged = message
                running[device] = state
                out.append(.problem(RecordingProblem(location: recorded.location, message: message)))
                return out
            }
            guard expected.write.characteristic == write.characteristic, expected.write.bytes == write.bytes else {
                let message =
                    "divergence: the bridge wrote \(Self.text(expected.write)) where the recording shows "
                    + "\(Self.text(write)); the recorded device's answers from here on are not delivered"
                state.diverged = message
                running[device] = state
                out.append(.problem(RecordingProblem(location: recorded.location, message: message)))
                return out
            }
            state.writes.removeFirst()
            running[device] = state
            out.append(.event(event, recorded.location))
            if expected.startsDownload {
                out.append(
                    .event(
                        TransportEvent(time: event.time, device: device, kind: .download(.started)),
                        recorded.location
                    )
                )
            }
            feed(device, .completed(action: expected.id), at: event.time, location: recorded.location, into: &out)
        case .value(let value):
            guard var state = running[device] else {
                out.append(.event(event, recorded.location))
                return out
            }
            if capturesAnotherClient {
                if racp(device, value.characteristic) {
                    // The device's answer to the recorded client: the records are known once a report ends.
                    if state.records[value.characteristic, default: .init()].recordedResponse(value.bytes) {
                        running[device] = state
                        answerCapturedWrites(device, at: event.time, location: recorded.location, into: &out)
                    }
                    return out
                }
                if let uuid = state.records.first(where: { $0.value.collecting })?.key {
                    state.records[uuid]?.recordedValue(value)
                    running[device] = state
                    return out
                }
                state.recordedValues += 1
                running[device] = state
            }
            if state.diverged != nil {
                state.withheld += 1
                running[device] = state
                return out
            }
            out.append(.event(event, recorded.location))
            feed(device, .value(value), at: event.time, location: recorded.location, into: &out)
            if value.delivery == .read,
                let index = running[device]?.reads.firstIndex(where: { $0.uuid == value.characteristic }),
                let read = running[device]?.reads.remove(at: index)
            {
                feed(device, .completed(action: read.id), at: event.time, location: recorded.location, into: &out)
            }
            if capturesAnotherClient {
                answerCapturedWrites(device, at: event.time, location: recorded.location, into: &out)
            }
        case .disconnected:
            out.append(.event(event, recorded.location))
            close(device, at: event.time, location: recorded.location, into: &out)
        case .error, .download:
            out.append(.event(event, recorded.location))
        }
        return out
    }

    /// Ends every open session (end of the recording).
    mutating func finish(location: RecordingLocation) -> [Output] {
        var out: [Output] = []
        for device in order where running[device] != nil {
            close(device, at: .distantFuture, location: location, into: &out)
        }
        return out
    }

    static func text(_ write: CharacteristicWrite) -> String {
        let bytes = write.bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }
        return "\(write.characteristic) \(bytes.isEmpty ? "(empty)" : bytes.joined(separator: " "))"
    }

    static func key(_ device: String, _ profile: String) -> String { "\(device)|\(profile)" }

    /// Reads the header's `sessionVariables`: `{"ADDRESS": {"consentCode": 1234, "key": "0xA1B2"}}` (whole numbers,
    /// or bytes as hex text); anything else is ignored.
    static func seeds(from value: JSONValue?) -> [String: SessionVariables] {
        guard case .object(let devices) = value else { return [:] }
        var seeds: [String: SessionVariables] = [:]
        for device in devices.members {
            guard case .object(let variables) = device.value else { continue }
            for variable in variables.members {
                switch variable.value {
                case .int(let number):
                    seeds[device.key, default: [:]][variable.key] = .integer(number)
                case .string(let text):
                    if let bytes = try? Hex.bytes(text) {
                        seeds[device.key, default: [:]][variable.key] = .bytes(bytes)
                    }
                default:
                    continue
                }
            }
        }
        return seeds
    }

    // MARK: - A capture of another client

    /// Whether `characteristic` is a Record Access Control Point of the device's session.
    private func racp(_ device: String, _ characteristic: BluetoothUUID) -> Bool {
        guard let message = plans[device]?.session.controlPoint(characteristic)?.message else { return false }
        return ObjectIdentifier(message) == ObjectIdentifier(RecordAccessControlPoint.self)
    }

    /// A capture of another client: answers the bridge's pending writes in order — a Record Access Control Point
    /// request from the records the capture shows (once a recorded report of records ended; an abort at once),
    /// any other write as accepted — and stops at a request whose records are not known yet.
    private mutating func answerCapturedWrites(
        _ device: String,
        at time: Date,
        location: RecordingLocation,
        into out: inout [Output]
    ) {
        while let state = running[device], let pending = state.writes.first {
            let write = pending.write
            var answer: CapturedRecords.Answer?
            if racp(device, write.characteristic) {
                let records = state.records[write.characteristic] ?? CapturedRecords()
                let aborts = write.bytes.first == RecordAccessControlPoint.OpCode.abortOperation.rawValue
                guard records.known || aborts else { return }
                answer = records.answer(write.bytes)
            }
            running[device]?.writes.removeFirst()
            out.append(.event(TransportEvent(time: time, device: device, kind: .written(write)), location))
            if pending.startsDownload {
                out.append(.event(TransportEvent(time: time, device: device, kind: .download(.started)), location))
            }
            feed(device, .completed(action: pending.id), at: time, location: location, into: &out)
            guard let answer else {
                notes.append(
                    RecordingProblem(
                        location: location,
                        message: "\(device): synthesised: \(Self.text(write)) taken as accepted (the capture has no "
                            + "answer to a write its client did not make)"
                    )
                )
                continue
            }
            var values = answer.values
            if !answer.response.isEmpty {
                values.append(
                    CharacteristicValue(
                        characteristic: write.characteristic,
                        bytes: answer.response,
                        delivery: .indication
                    )
                )
            }
            let response = Self.text(CharacteristicWrite(characteristic: write.characteristic, bytes: answer.response))
            notes.append(
                RecordingProblem(
                    location: location,
                    message: "\(device): synthesised: \(Self.text(write)) answered \(response): \(answer.summary)"
                )
            )
            for value in values {
                out.append(.event(TransportEvent(time: time, device: device, kind: .value(value)), location))
                feed(device, .value(value), at: time, location: location, into: &out)
                if running[device] == nil { return }
            }
        }
    }

    // MARK: - Machine

    private mutating func start(
        _ device: String,
        at time: Date,
        location: RecordingLocation,
        into out: inout [Output]
    ) {
        guard running[device] == nil, let plan = plans[device], plan.linkMode == .gatt, !plan.session.isEmpty else {
            return
        }
        var machine = SessionMachine(
            script: plan.session,
            variables: (seeds[device] ?? [:]).merging(memory[Self.key(device, plan.profile)] ?? [:]) { $1 },
            timeZone: timeZone,
            device: device
        )
        let actions = machine.start(now: time)
        running[device] = Running(machine: machine, profile: plan.profile)
        order.removeAll { $0 == device }
        order.append(device)
        perform(device, actions, at: time, location: location, into: &out)
    }

    private mutating func feed(
        _ device: String,
        _ input: SessionInput,
        at time: Date,
        location: RecordingLocation,
        into out: inout [Output]
    ) {
        guard var state = running[device] else { return }
        let actions = state.machine.handle(input, now: time)
        running[device] = state
        perform(device, actions, at: time, location: location, into: &out)
    }

    private mutating func perform(
        _ device: String,
        _ actions: [SessionAction],
        at time: Date,
        location: RecordingLocation,
        into out: inout [Output]
    ) {
        for action in actions {
            switch action {
            case .write(let id, let uuid, let bytes, let withResponse):
                running[device]?.writes.append(
                    (id, CharacteristicWrite(characteristic: uuid, bytes: bytes, withResponse: withResponse), false)
                )
            case .download(.started):
                // Follows the write that starts the download; delivered after the recording shows that write.
                if let last = running[device]?.writes.indices.last {
                    running[device]?.writes[last].startsDownload = true
                }
            case .download(.ended):
                out.append(.event(TransportEvent(time: time, device: device, kind: .download(.ended)), location))
            case .read(let id, let uuid):
                running[device]?.reads.append((id, uuid))
            case .readDescriptors(let id, _, let descriptor):
                // Recordings hold characteristic traffic, never descriptor values: the read finds nothing to give.
                let message = "descriptor \(descriptor) values are not recorded"
                feed(device, .failed(action: id, message: message), at: time, location: location, into: &out)
            case .subscribe(let id, _):
                feed(device, .completed(action: id), at: time, location: location, into: &out)
            case .startTimer(let id, let seconds):
                running[device]?.timers.append((id, time.addingTimeInterval(seconds)))
            case .finished(let persist):
                guard let profile = running[device]?.profile else { continue }
                var variables = memory[Self.key(device, profile)] ?? [:]
                for (name, value) in persist { variables[name] = value }
                memory[Self.key(device, profile)] = variables
            case .failed, .progress:
                // A failure: the live bridge failed here too when the recording is faithful (its `error` event
                // follows). Progress is for the terminal.
                break
            }
        }
    }

    private mutating func fireTimers(
        upTo time: Date,
        location: RecordingLocation,
        into out: inout [Output]
    ) {
        for device in order {
            while let state = running[device], state.diverged == nil,
                let next = state.timers.enumerated().min(by: { $0.element.deadline < $1.element.deadline }),
                next.element.deadline <= time
            {
                running[device]?.timers.remove(at: next.offset)
                feed(device, .timer(next.element.id), at: next.element.deadline, location: location, into: &out)
                if capturesAnotherClient {
                    answerCapturedWrites(device, at: next.element.deadline, location: location, into: &out)
                }
            }
        }
    }

    private mutating func close(
        _ device: String,
        at time: Date,
        location: RecordingLocation,
        into out: inout [Output]
    ) {
        guard let state = running.removeValue(forKey: device) else { return }
        if capturesAnotherClient {
            notes.append(
                RecordingProblem(
                    location: location,
                    message: "\(device): recorded: \(state.recordedValues) value(s) the device sent on its own, "
                        + "delivered as captured; not replayed: \(state.recordedWrites) write(s) of the captured client"
                )
            )
            if let unanswered = state.writes.first {
                out.append(
                    .problem(
                        RecordingProblem(
                            location: location,
                            message: "the bridge wrote \(Self.text(unanswered.write)) to \(device), and the capture "
                                + "shows no records the device sent to another client's request to answer it from"
                        )
                    )
                )
            }
            return
        }
        if state.diverged != nil {
            if state.withheld > 0 {
                out.append(
                    .problem(
                        RecordingProblem(
                            location: location,
                            message:
                                "\(state.withheld) recorded event(s) of \(device) after the divergence were not delivered"
                        )
                    )
                )
            }
        } else if let unanswered = state.writes.first {
            out.append(
                .problem(
                    RecordingProblem(
                        location: location,
                        message: "divergence: the bridge wrote \(Self.text(unanswered.write)) to \(device), which the "
                            + "recording does not show (it has no answer to deliver)"
                    )
                )
            )
        }
    }
}
