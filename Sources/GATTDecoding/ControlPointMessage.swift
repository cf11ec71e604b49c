/// A value of a control point the collector writes requests to and the device answers on (Record Access
/// Control Point, User Control Point): the `controlPoint` role of a profile. Tells the session machine, which
/// writes the requests and reads the responses, when a stored-record download starts and ends.
public protocol ControlPointMessage: GATTPayload {
    /// The device's final response to a procedure that may report stored records (RACP Response Code, op code
    /// 6): every record the procedure reported has been sent, nothing more will follow.
    var endsRecordReport: Bool { get }
    /// A collector's request that the device report stored records (RACP op code 1, any operator): the
    /// measurements that follow until ``endsRecordReport`` are records downloaded from the device's memory.
    var requestsStoredRecords: Bool { get }
}

// MARK: - ControlPointMessage

extension RecordAccessControlPoint: ControlPointMessage {
    public var endsRecordReport: Bool { opCode == .responseCode }
    public var requestsStoredRecords: Bool { opCode == .reportStoredRecords }
}

/// The User Control Point registers users and gets their consent; it never reports stored records, so none of
/// its messages starts or ends a download.
extension UserControlPoint: ControlPointMessage {
    public var endsRecordReport: Bool { false }
    public var requestsStoredRecords: Bool { false }
}
