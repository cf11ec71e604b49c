import BridgeCore
import BridgeFoundation
import DeviceSessions
import Foundation
import GATTDecoding

/// Makes a recording answer the bridge's session steps: the profile's ``SessionMachine`` runs against the
/// recorded device, and what the recording shows the device sending after a `write` is delivered only when
/// the bridge wrote the same bytes.
///
/// Pure: recorded events in, events and problems out, in recorded time (timers fire at `event time +
/// seconds`). Session variables live in memory for the length of the recording, so a recording replays the
/// same however often it is replayed and whatever the store holds.
struct SessionAnswerer {
    let policy: any ConnectionPolicy
    let timeZone: TimeZone

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
        case .written(let write):
            guard var state = running[device] else {
                out.append(.event(event, recorded.location))
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
            timeZone: timeZone
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
