import BridgeFoundation
public import GATTDecoding

/// What a Viatom oximeter says about itself in answer to the information command (0x14): a JSON object, padded
/// with NUL bytes, whose `FileList` names the stored recordings (comma-separated, e.g. `20210427225010`) and whose
/// `CurTIME` is the device clock as `YYYY-MM-DD,HH:MM:SS` (MackeyStingray/o2r `o2r/o2state.py`, commit e8ad57f9).
public struct ViatomDeviceInfo: Sendable, Hashable {
    /// Why a response is not the information JSON.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var reason: String
        public var description: String { "device information: \(reason)" }
    }

    public var files: [String]
    /// The device clock when it answered; nil when the field is missing or not a time.
    public var clock: DateTime?

    /// - Throws: ``Failure`` when the data are not a JSON object.
    public init(data: [UInt8]) throws(Failure) {
        var bytes = data
        while let last = bytes.last, [0x00, 0x20, 0x0A, 0x0D, 0x09].contains(last) { bytes.removeLast() }
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw Failure(reason: error.description)
        }
        guard let object = value.objectValue else { throw Failure(reason: "not a JSON object") }
        files = (object["FileList"]?.stringValue ?? "").split(separator: ",").map {
            String($0.filter { !$0.isWhitespace })
        }.filter { !$0.isEmpty }
        clock = object["CurTIME"]?.stringValue.flatMap(Self.time)
    }

    /// `YYYY-MM-DD,HH:MM:SS` as a device time (a known date from 2000 on).
    static func time(_ text: String) -> DateTime? {
        let parts = text.split(whereSeparator: { "-,: ".contains($0) }).compactMap { Int($0) }
        guard let time = DateTime(checking: parts), !time.isUnknown, time.year >= 2000 else { return nil }
        return time
    }
}
