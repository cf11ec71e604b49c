import ArgumentParser
import BridgeCore
import BridgeFoundation
import CareStore

struct DevicesAssign: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assign",
        abstract: "Say which patient a device, or one user slot of it, belongs to (the device registry).",
        discussion: """
            Readings are routed when they are stored: a store with one patient takes every reading; with several, \
            a reading goes to the owner of its device's user slot (scales and cuffs with users: `--slot N`, the \
            userID they send), else to the owner of the whole device, else — for a slot-less scale several \
            patients share (`--shared`) — to the one patient whose recent weight (median of the last five \
            weigh-ins in 90 days) is within 3 % (at least 1.5 kg) of it. Anything else, a guest or a reading that \
            fits two patients, waits in the unassigned inbox (`carebridge samples --unassigned`) with every field \
            kept: nothing is guessed, nothing is lost.

            DEVICE is the address (AA:BB:CC:DD:EE:FF) or the serial number the device reports (stable when the \
            address is random). Re-assigning says whose it was. Without DEVICE and PATIENT, lists the registry.

            Examples:
              carebridge devices assign C8:47:8C:12:34:56 --slot 1 alice
              carebridge devices assign C8:47:8C:12:34:56 --slot 2 bob
              carebridge devices assign 5C:CA:D3:00:00:01 --shared alice
              carebridge devices assign 5C:CA:D3:00:00:01 --shared bob
              carebridge devices assign SN-CUFF-0042 bed-3

            JSON (--json): the registry, [{"device", "slot", "patient", "shared", "assignedAt"}].

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Argument(help: "The device's address or serial number.")
    var device: String?

    @Argument(help: "The patient id (see `carebridge patients`).")
    var patientID: String?

    @Option(name: .long, help: "The user slot (the userID a multi-user scale or cuff sends), 0…254.")
    var slot: Int?

    @Flag(name: .long, help: "Add the patient to those sharing a slot-less device (matched by weight band).")
    var shared = false

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func validate() throws {
        if (device == nil) != (patientID == nil) {
            throw ValidationError("give both DEVICE and PATIENT, or neither to list the registry")
        }
        if let slot { try NumericOption.check(slot, "--slot", in: 0...254) }
        if shared, slot != nil { throw ValidationError("--shared is for devices without user slots; drop --slot") }
    }

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let store = try await storeOptions.open(zone: zone, patients: .any)
        do {
            if let device, let patientID {
                let previous = try await store.assignDevice(device, slot: slot, to: patientID, shared: shared)
                if !json {
                    let what = slot.map { "user slot \($0) of \(device)" } ?? device
                    if shared {
                        print("\(device) is shared by \(patientID) (matched by weight band)")
                    } else if let previous {
                        print("\(what) now belongs to \(patientID) (it belonged to \(previous))")
                    } else {
                        print("\(what) belongs to \(patientID)")
                    }
                    return
                }
            }
            let registry = try await store.deviceAssignments()
            if json {
                print(
                    JSONValue.array(
                        registry.map {
                            .object([
                                "device": .string($0.device), "slot": $0.slot.map { .int($0) } ?? .null,
                                "patient": .string($0.patientID), "shared": .bool($0.shared),
                                "assignedAt": .string(Timestamp.format($0.assignedAt, in: zone)),
                            ])
                        }
                    ).serialized()
                )
                return
            }
            guard !registry.isEmpty else {
                print("no device is assigned yet")
                return
            }
            var table = Table(["DEVICE", "SLOT", "PATIENT", "HOW", "SINCE"])
            for row in registry {
                table.append([
                    row.device, row.slot.map(String.init) ?? "-", row.patientID,
                    row.shared ? "shared (weight band)" : row.slot == nil ? "owner" : "slot owner",
                    Timestamp.format(row.assignedAt, in: zone),
                ])
            }
            print(table.render())
        } catch {
            throw StoreExit.fail(error)
        }
    }
}
