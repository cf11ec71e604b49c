import BridgeCore
import Foundation

/// CareBridge as the guide's personal health gateway: the `PhgDevice` every PHD Observation names in its
/// `gatewayDevice` extension and every coincident time stamp in its `device`.
///
/// - SeeAlso: PHD IG 2.0 PhgDevice (identifier 1..*, with an EUI-64 System Id; `type` MDC 531981; a
///   specialization per supported device type; at least one version; manufacturer and model of the software).
public struct FHIRGateway: Sendable, Hashable {
    /// The gateway's EUI-64 as the guide writes it (`02-1A-2B-…`, eight bytes).
    public var systemID: String
    /// CareBridge's version (`Device.version`, software).
    public var softwareVersion: String
    /// `Device.manufacturer` / `modelNumber`: the software's.
    public var manufacturer: String
    public var model: String

    public init(
        systemID: String,
        softwareVersion: String,
        manufacturer: String = "CareBridge project",
        model: String = "CareBridge"
    ) {
        self.systemID = systemID
        self.softwareVersion = softwareVersion
        self.manufacturer = manufacturer
        self.model = model
    }

    /// A gateway whose System Id is derived from `hostIdentity` (e.g. the content of `/etc/machine-id`): the first
    /// eight bytes of its SHA-256 with the EUI's locally-administered bit set and its group bit cleared (the
    /// guide wants an EUI-64; CareBridge has no IEEE-assigned one, so it uses a locally administered one that
    /// stays the same for the same machine).
    public static func derived(fromHostIdentity hostIdentity: String, softwareVersion: String) -> FHIRGateway {
        var bytes = Array(SHA256.hash(Array(hostIdentity.utf8)).prefix(8))
        bytes[0] = (bytes[0] | 0x02) & 0xFE
        let text = bytes.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }
        return FHIRGateway(systemID: text.joined(separator: "-"), softwareVersion: softwareVersion)
    }

    /// The gateway of an export that names none: a fixed System Id, version unknown.
    public static let unnamed = FHIRGateway.derived(fromHostIdentity: "carebridge", softwareVersion: "unknown")
}
