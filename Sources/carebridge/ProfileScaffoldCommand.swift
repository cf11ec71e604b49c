import ArgumentParser
import BridgeCore
import BridgeFoundation
import DeviceProfiles
import Foundation
import Logging
import SessionReplay

struct ProfileScaffoldCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scaffold",
        abstract: "Draft a device profile and its fixtures from a recording.",
        discussion: """
            Reads a recording (JSON Lines, e.g. made by `carebridge record` or `carebridge import btsnoop`) and \
            drafts a profile for its most active device: the match from its advertisements (name with a trailing \
            serial replaced by *, advertised services, manufacturer company id), the notified, indicated and read \
            characteristics (a standard one with its decoder, a vendor one with frame stubs selected by the \
            values' common first byte and a "_todo" note instead of fields), the bridge's writes as session \
            steps, and every notified, indicated or advertised value as a fixture with an empty "expect" for you \
            to fill with the true values. What could not be inferred is printed on standard error.

            The draft loads as it is. `carebridge profile test` on it shows what the pipeline stores for each \
            value: nothing for frame stubs until you add fields and samples, the decoded samples for standard \
            characteristics (as "unexpected" until you put them in "expect"). Devices/README.md ("Bring up a new \
            device") walks through it.

            Examples:
              carebridge import btsnoop btsnoop_hci.log --out scale.jsonl
              carebridge profile scaffold scale.jsonl \\
                  --out ~/.config/carebridge/devices/my-scale.json

            Exit status: 0 drafted; 65 the recording has no usable events; 66 it cannot be read; 73 --out cannot \
            be written.
            """
    )

    @Argument(help: "The recording.", completion: .file())
    var recording: String

    @Option(name: .long, help: ArgumentHelp("Write the profile here (default: standard output).", valueName: "file"))
    var out: String?

    @Option(name: .long, help: FileMode.help)
    var mode: FileMode = .private

    @Option(name: .long, help: ArgumentHelp("The profile id (default: the recording's file name).", valueName: "id"))
    var id: String?

    func run() throws {
        let reader: RecordingReader
        do {
            reader = try RecordingReader(path: recording, logger: Logger(label: "carebridge.scaffold"))
        } catch {
            Output.error(error.description)
            throw ExitCode(66)
        }
        var events: [TransportEvent] = []
        var problems = 0
        while let item = reader.next() {
            switch item {
            case .event(let recorded): events.append(recorded.event)
            case .problem(let problem):
                problems += 1
                Output.error("warning: \(problem.location): \(problem.message) (line skipped)")
            }
        }
        guard !events.isEmpty else {
            Output.error("\(recording): no events to draft a profile from")
            throw ExitCode(65)
        }
        let stem = URL(fileURLWithPath: recording).deletingPathExtension().lastPathComponent
        let profileID =
            id
            ?? String(stem.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "-" })
        let scaffold = ProfileScaffold(events: events, id: profileID)
        let text = JSONValue.object(scaffold.profile).serialized(pretty: true) + "\n"
        // The draft must load: a scaffold that the loader refuses would only move the problem.
        if let problem = Result(catching: { try DeviceProfile(json: text) }).failureDescription {
            Output.error("note: the draft does not load yet (\(problem)); fix it by hand")
        }
        if let out {
            let existed = FileManager.default.fileExists(atPath: out)
            do {
                let file = try SafeOutputFile(path: out, mode: mode.bits, inputs: [recording])
                try file.write(text)
                try file.commit()
            } catch {
                Output.error(error.description)
                throw ExitCode(73)
            }
            if existed { Output.error("note: replaced the existing \(out)") }
            Output.error("drafted profile \(profileID) in \(out)")
        } else {
            print(text, terminator: "")
        }
        for note in scaffold.notes { Output.error("to do: \(note)") }
    }
}

extension Result {
    fileprivate var failureDescription: String? {
        if case .failure(let error) = self { return "\(error)" }
        return nil
    }
}
