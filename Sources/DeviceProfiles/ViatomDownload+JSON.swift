import BridgeCore
public import BridgeFoundation
public import DeviceSessions

extension ViatomDownload {
    /// Reads a profile's `viatom` section (format in `Devices/README.md`, "Viatom oximeters"): `model`, and
    /// optionally `write`, `notify` (the vendor characteristics), `timeout` (seconds per response), `retries` and
    /// `liveReading`.
    /// - Throws: ``DeviceProfileError`` naming the field.
    public init(profileJSON reader: JSONReader) throws(DeviceProfileError) {
        do throws(JSONReadError) {
            let object = try reader.object(
                allowing: ["model", "write", "notify", "timeout", "retries", "liveReading"],
                ignoringPrefix: "_"
            )
            let timeout = try object["timeout"]?.number() ?? 10
            guard timeout > 0, timeout <= 120 else { throw object.error("timeout", "expected 0…120 seconds") }
            self.init(
                model: try object.required("model").string(),
                write: try object["write"].map { reader throws(JSONReadError) in try OmronMemoryMap.uuid(reader) }
                    ?? Self.defaultWrite,
                notify: try object["notify"].map { reader throws(JSONReadError) in try OmronMemoryMap.uuid(reader) }
                    ?? Self.defaultNotify,
                timeout: timeout,
                retries: try object["retries"].map { reader throws(JSONReadError) in
                    try OmronMemoryMap.count(reader, in: 0...10)
                } ?? 2,
                liveReading: try object["liveReading"]?.bool() ?? true
            )
        } catch {
            throw DeviceProfileError(field: error.path.description, message: error.message)
        }
    }
}
