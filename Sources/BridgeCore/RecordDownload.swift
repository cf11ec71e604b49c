/// A stored-record download as a device session runs it (a Record Access Control Point's report of stored
/// records): told by the session machine, which wrote the request and reads the device's final response, so the
/// pipeline knows which measurements are records from the device's memory without reading control-point bytes.
public enum RecordDownload: Sendable, Hashable {
    /// The session wrote a request that the device report stored records; the measurements that follow are
    /// records.
    case started
    /// The device's final response to the procedure arrived: every record it reported has been sent.
    case ended
}
