import Foundation
import SampleExport

/// This machine as the PHD IG's gateway (``FHIRGateway``): its System Id derived from `/etc/machine-id` (the
/// host name when there is none), so exports and pushes from one box name the same gateway.
enum GatewayIdentity {
    static func current() -> FHIRGateway {
        let machineID = (try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let identity = machineID.flatMap { $0.isEmpty ? nil : $0 } ?? ProcessInfo.processInfo.hostName
        return FHIRGateway.derived(fromHostIdentity: identity, softwareVersion: CareBridgeVersion.current)
    }
}
