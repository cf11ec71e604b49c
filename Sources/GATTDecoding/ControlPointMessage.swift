/// A value of a control point the collector writes requests to and the device answers on (Record Access
/// Control Point): tells the pipeline when a procedure is over, without reading op codes itself.
public protocol ControlPointMessage: GATTPayload {
    /// The device's final response to a procedure (RACP Response Code, op code 6): every record the procedure
    /// reported has been sent, nothing more will follow.
    var isResponse: Bool { get }
    /// A collector's request that the device report stored records (RACP op code 1, any operator): the
    /// measurements that follow until ``isResponse`` are records downloaded from the device's memory.
    var requestsStoredRecords: Bool { get }
}

extension RecordAccessControlPoint: ControlPointMessage {
    public var isResponse: Bool { opCode == .responseCode }
    public var requestsStoredRecords: Bool { opCode == .reportStoredRecords }
}
