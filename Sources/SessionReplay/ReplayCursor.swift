/// Where a replay is in its recording: the reader, the session answerer and what the answerer produced for one
/// line that has not been handed on yet.
///
/// Apart from ``ReplayTransport`` and not generic (pacing is the only part that knows the clock), so reading
/// the next item compiles to concrete code instead of code that looks up a clock-dependent layout on every line.
struct ReplayCursor {
    var reader: RecordingReader?
    /// Runs the profiles' session steps against the recording (``ReplayTransport/answerSessions(policy:timeZone:)``).
    var answerer: SessionAnswerer?
    /// Items the answerer produced for one line, not yet consumed, with their `t`; `next` is the first unread.
    private var pending: [(item: ReplayItem, t: Double?)] = []
    private var nextPending = 0
    private var lastLocation: RecordingLocation?

    init(reader: RecordingReader) {
        self.reader = reader
    }

    /// The next item with its `t` (nil for problems and for what the answerer reports at the end, which is not
    /// paced); nil at the end of the recording.
    mutating func next() -> (item: ReplayItem, t: Double?)? {
        while nextPending == pending.count {
            pending.removeAll(keepingCapacity: true)
            nextPending = 0
            guard let reader else { return nil }
            guard let item = reader.next() else {
                self.reader = nil  // closes the file
                if var answerer, let lastLocation {
                    pending = answerer.finish(location: lastLocation).map { (Self.item($0), nil) }
                    self.answerer = answerer
                }
                continue
            }
            switch item {
            case .event(let recorded):
                lastLocation = recorded.location
                // Taken out while it runs, so its tables are changed in place rather than copied on write.
                guard var answerer = answerer.take() else {
                    return (.event(recorded.event, recorded.location), recorded.t)
                }
                let outputs = answerer.process(recorded)
                self.answerer = answerer
                func paced(_ output: SessionAnswerer.Output) -> (item: ReplayItem, t: Double?) {
                    if case .event = output { (Self.item(output), recorded.t) } else { (Self.item(output), nil) }
                }
                // Almost every line gives exactly its own event: handed on without the queue.
                if outputs.count == 1 { return paced(outputs[0]) }
                pending = outputs.map(paced)
            case .problem(let problem):
                return (.problem(problem), nil)
            }
        }
        defer { nextPending += 1 }
        return pending[nextPending]
    }

    private static func item(_ output: SessionAnswerer.Output) -> ReplayItem {
        switch output {
        case .event(let event, let location): .event(event, location)
        case .problem(let problem): .problem(problem)
        }
    }
}
