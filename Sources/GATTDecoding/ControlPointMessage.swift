/// A value of a control point the collector writes requests to and the device answers on (Record Access
/// Control Point): tells the pipeline when a procedure is over, without reading op codes itself.
public protocol ControlPointMessage: GATTPayload {
    /// The device's final response to a procedure (RACP Response Code, op code 6): every record the procedure
    /// reported has been sent, nothing more will follow.
    var isResponse: Bool { get }
}

extension RecordAccessControlPoint: ControlPointMessage {
    public var isResponse: Bool { opCode == .responseCode }
}
