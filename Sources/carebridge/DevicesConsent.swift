import ArgumentParser
import BlueZTransport
import BridgeCore
import CareStore
import Foundation

struct DevicesConsent: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consent",
        abstract: "Record the consent code (and scale slot) a user chose on a multi-user scale.",
        discussion: """
            Multi-user scales with the User Data Service (Beurer BF600/BF720/BF850, Sanitas SBF72/73) give a \
            user's measurements only after the collector consents with that user's slot (user index) and the \
            4-digit consent code chosen on the scale or in the vendor app. This stores both for the device; the \
            profile's session sends them at the next connection. Without --user-index the bridge registers a new \
            user with the code at the next connection (the scale may ask to confirm) and keeps the slot it gets.

            --forget removes what was stored for the device under the profile (the scale itself is not changed).

            Examples:
              carebridge devices consent C4:7C:8D:6A:3E:10 --consent-code 1234 \\
                  --user-index 1
              carebridge devices consent C4:7C:8D:6A:3E:10 --consent-code 1234
              carebridge devices consent C4:7C:8D:6A:3E:10 --forget

            \(StoreExit.help)
            """
    )

    @Argument(help: "The scale's Bluetooth address.")
    var device: String

    @Option(help: "The device profile whose session uses the code.")
    var profile = "uds-body-composition-scale"

    @Option(name: .customLong("consent-code"), help: "The consent code, 0–9999.")
    var consentCode: Int?

    @Option(name: .customLong("user-index"), help: "The user's slot on the scale, 0–254 (if already registered).")
    var userIndex: Int?

    @Flag(help: "Remove the stored consent code and slot.")
    var forget = false

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard BluetoothAddress(device) != nil else {
            throw ValidationError("'\(device)' is not a Bluetooth address such as C4:7C:8D:6A:3E:10")
        }
        if forget {
            guard consentCode == nil, userIndex == nil else {
                throw ValidationError("--forget takes neither --consent-code nor --user-index")
            }
            return
        }
        guard let consentCode else { throw ValidationError("give --consent-code (or --forget)") }
        try NumericOption.check(consentCode, "--consent-code", in: 0...9999)
        // 255 means an unknown user: not a slot to give.
        if let userIndex { try NumericOption.check(userIndex, "--user-index", in: 0...254) }
    }

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let store = try await storeOptions.open(zone: zone, patients: .any)
        let address = BluetoothAddress(device)!.description
        var variables: [String: SessionValue?] = [
            "consentCode": consentCode.map { .integer($0) },
            // A new code means a new registration unless the slot is given.
            "userIndex": userIndex.map { .integer($0) },
        ]
        if forget { variables = ["consentCode": nil, "userIndex": nil] }
        try await StoreExit.attempt {
            try await store.saveSessionVariables(variables, device: address, profile: profile)
        }
        if forget {
            print("forgot the consent code and slot of \(address) (\(profile))")
        } else if let userIndex {
            print("\(address) (\(profile)): consent code stored for slot \(userIndex); sent at the next connection")
        } else {
            print("\(address) (\(profile)): consent code stored; a new user is registered at the next connection")
        }
    }
}
