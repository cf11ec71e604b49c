import BridgeCore
import BridgeFoundation
import GATTDecoding

/// The stored records a capture of another client shows a device holding behind one Record Access Control Point,
/// and the standard answers they give to the bridge's own requests.
///
/// A capture made by a vendor's phone app asks in its own way ("report all records" at once, where the bridge
/// first asks how many): its recorded answers cannot be matched to the bridge's writes byte for byte. What the
/// capture does show is the records the device sent in answer to a report-stored-records request; from those
/// the standard procedures are answered semantically (number of records, all, ≤ / ≥ / range by sequence number
/// or user-facing time, first, last, abort).
///
/// A record is a value of the characteristic that answered first (Glucose Measurement, PLX Spot-Check, Weight,
/// Blood Pressure Measurement) with the values of other characteristics that followed it (a glucose
/// measurement's context). A record the capture shows twice (two recorded downloads) is kept once. Pure.
struct CapturedRecords {
    struct Record {
        var values: [CharacteristicValue]
        /// From a Glucose Measurement (the one record type with a sequence number and a user-facing time).
        var sequenceNumber: UInt16?
        var userFacingTime: DateTime?
    }

    /// The answer to one request of the bridge.
    struct Answer {
        /// The records to deliver, then the control point's response.
        var values: [CharacteristicValue]
        var response: [UInt8]
        /// What was answered, for the replay summary (`05 00 03 00 (3 of the 3 records …)`).
        var summary: String
    }

    private(set) var records: [Record] = []
    /// A recorded report-stored-records procedure has ended: only from then on are the device's records known.
    private(set) var known = false
    /// Inside a recorded report-stored-records procedure: its values are records.
    private(set) var collecting = false
    /// The characteristic whose values start a record in the procedure being collected.
    private var recordCharacteristic: BluetoothUUID?
    /// The record being collected is one already kept (its values are dropped).
    private var duplicate = false

    /// The recorded client wrote `bytes` to the control point.
    mutating func recordedRequest(_ bytes: [UInt8]) {
        guard let request = try? RecordAccessControlPoint.decode(bytes), request.requestsStoredRecords else { return }
        collecting = true
        recordCharacteristic = nil
        duplicate = false
    }

    /// The device indicated `bytes` on the control point; true when it ended a recorded report of records.
    mutating func recordedResponse(_ bytes: [UInt8]) -> Bool {
        guard collecting, let response = try? RecordAccessControlPoint.decode(bytes), response.endsRecordReport
        else { return false }
        collecting = false
        known = true
        return true
    }

    /// A value the device sent on another characteristic while a recorded report of records runs.
    mutating func recordedValue(_ value: CharacteristicValue) {
        if recordCharacteristic == nil { recordCharacteristic = value.characteristic }
        guard value.characteristic == recordCharacteristic else {
            if !duplicate, !records.isEmpty { records[records.count - 1].values.append(value) }
            return
        }
        duplicate = records.contains { $0.values.first?.bytes == value.bytes }
        guard !duplicate else { return }
        var record = Record(values: [value])
        if value.characteristic == .glucoseMeasurement, let measurement = try? GlucoseMeasurement.decode(value.bytes) {
            record.sequenceNumber = measurement.sequenceNumber
            record.userFacingTime = measurement.userFacingTime
        }
        records.append(record)
    }

    /// The standard answer to `bytes` written to the control point (abort is answered at any time; every other
    /// request only once ``known``).
    func answer(_ bytes: [UInt8]) -> Answer {
        guard let request = try? RecordAccessControlPoint.decode(bytes) else {
            return Answer(values: [], response: [], summary: "no answer: not a Record Access Control Point request")
        }
        let op = request.opCode
        func response(_ value: RecordAccessControlPoint.ResponseValue) -> [UInt8] {
            [RecordAccessControlPoint.OpCode.responseCode.rawValue, 0, op.rawValue, value.rawValue]
        }
        let shown = "the \(Self.count(records.count)) the capture shows"
        switch op {
        case .abortOperation:
            return Answer(values: [], response: response(.success), summary: "abort: success")
        case .reportStoredRecords, .reportNumberOfStoredRecords:
            let selected: [Record]
            switch select(request) {
            case .refused(let value):
                return Answer(values: [], response: response(value), summary: "\(value.name) (\(shown))")
            case .records(let records): selected = records
            }
            if op == .reportNumberOfStoredRecords {
                let count = UInt16(clamping: selected.count)
                return Answer(
                    values: [],
                    response: [RecordAccessControlPoint.OpCode.numberOfStoredRecordsResponse.rawValue, 0]
                        + [UInt8(count & 0xFF), UInt8(count >> 8)],
                    summary: "\(selected.count) of \(shown)"
                )
            }
            guard !selected.isEmpty else {
                return Answer(values: [], response: response(.noRecordsFound), summary: "no records found (\(shown))")
            }
            return Answer(
                values: selected.flatMap(\.values),
                response: response(.success),
                summary: "\(selected.count) of \(shown), then success"
            )
        default:
            // Deleting, or an op code this replay does not know: a capture cannot say what the device would do.
            return Answer(values: [], response: response(.opCodeNotSupported), summary: "op code not supported")
        }
    }

    /// The records a request's operator selects, or why it refuses.
    private enum Selection {
        case records([Record])
        case refused(RecordAccessControlPoint.ResponseValue)
    }

    private func select(_ request: RecordAccessControlPoint) -> Selection {
        switch request.operator {
        case .allRecords: return .records(records)
        case .firstRecord: return .records(Array(records.prefix(1)))
        case .lastRecord: return .records(Array(records.suffix(1)))
        case .lessThanOrEqualTo, .greaterThanOrEqualTo, .withinRangeOf:
            let keys = records.map { record -> Int? in
                switch request.filterType {
                case 0x01: record.sequenceNumber.map(Int.init)
                case 0x02: record.userFacingTime.map(Self.key)
                default: nil
                }
            }
            let bounds = request.filterValues.map { value -> Int in
                switch value {
                case .sequenceNumber(let number): Int(number)
                case .userFacingTime(let time): Self.key(time)
                }
            }
            guard !bounds.isEmpty, keys.allSatisfy({ $0 != nil }) else { return .refused(.operandNotSupported) }
            let (low, high): (Int, Int) =
                switch request.operator {
                case .lessThanOrEqualTo: (Int.min, bounds[0])
                case .greaterThanOrEqualTo: (bounds[0], Int.max)
                default: (bounds[0], bounds[bounds.count - 1])
                }
            guard low <= high else { return .refused(.invalidOperand) }
            return .records(zip(records, keys).filter { low <= $0.1! && $0.1! <= high }.map(\.0))
        case .null: return .refused(.invalidOperator)
        default: return .refused(.operatorNotSupported)
        }
    }

    /// A user-facing time as one ordered number (yyyyMMddHHmmss).
    static func key(_ time: DateTime) -> Int {
        ((((time.year * 100 + time.month) * 100 + time.day) * 100 + time.hours) * 100 + time.minutes) * 100
            + time.seconds
    }

    static func count(_ records: Int) -> String { records == 1 ? "1 record" : "\(records) records" }
}
