import ArgumentParser
import Foundation

@main
struct CareBridgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "carebridge",
        abstract: "Bridge Bluetooth LE health devices to a CareKit-style care plan.",
        discussion: """
            CareBridge decodes what scales, thermometers, heart-rate straps, blood-pressure cuffs, glucose \
            meters and pulse oximeters send, normalises it into quantity samples, and completes the matching \
            assessment events of a care plan.

            Examples:
              carebridge plan apply plan.json
              carebridge ingest bodyMass 72.4 kg
              carebridge today
              carebridge run --store /var/lib/carebridge/store.sqlite
            """,
        version: CareBridgeVersion.full,
        subcommands: [
            Decode.self, Plan.self, Ingest.self, Today.self, Events.self, Samples.self, Adherence.self, Tasks.self,
            Complete.self,
            Uncomplete.self, Replay.self, Recording.self, Export.self, Adapters.self, Scan.self, Run.self, Record.self,
            SystemdUnit.self, Outbox.self, Alerts.self, InsightsCommand.self, Report.self, Devices.self,
            Import.self, Patients.self, Contacts.self, Shared.self, Profile.self, Store.self, Users.self, Serve.self,
            Hub.self, Sync.self, Nightscout.self, FHIR.self,
        ]
    )

    /// ArgumentParser's entry point, with two changes: a mistyped subcommand gets "did you mean", and an
    /// argument error found while running (a `ValidationError` from `run()`) prints the usage of the
    /// subcommand that was run, not the root's.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            if let unknown = CommandSuggestion.unknownSubcommand(in: arguments, root: self) {
                let path = unknown.command.map(CommandSuggestion.name(of:)).joined(separator: " ")
                var message = "Error: unknown command '\(unknown.typed)' for '\(path)'."
                if let suggestion = unknown.suggestion { message += " Did you mean '\(suggestion)'?" }
                let last = unknown.command[unknown.command.count - 1]
                message += "\nUsage: " + usageString(for: last) + "\n  See '\(path) --help' for the list of commands.\n"
                FileHandle.standardError.write(Data(message.utf8))
                Foundation.exit(ExitCode.validationFailure.rawValue)
            }
            exit(withError: error)
        }
        do {
            defer { OpenStores.shared.closeAll() }
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ValidationError {
            let usage = usageString(for: type(of: command))
            let path = usage.split(separator: " ").prefix {
                !$0.hasPrefix("<") && !$0.hasPrefix("[") && !$0.hasPrefix("-")
            }
            FileHandle.standardError.write(
                Data(
                    ("Error: \(error.message)\nUsage: \(usage)\n  See '\(path.joined(separator: " ")) --help' for more "
                        + "information.\n").utf8
                )
            )
            Foundation.exit(ExitCode.validationFailure.rawValue)
        } catch {
            exit(withError: error)
        }
    }
}
