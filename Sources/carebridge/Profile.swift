import ArgumentParser

struct Profile: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Work on device profiles: run their fixtures, lint them, draft one from a recording.",
        discussion: """
            Device profiles (Devices/*.json, documented in Devices/README.md) say how a device is recognised and \
            how its values are read, with compiled decoders or the frame language. `test` runs the fixtures \
            profiles carry through the real ingest pipeline.

            Examples:
              carebridge profile test
              carebridge profile lint Devices/my-scale.json
            """,
        subcommands: [ProfileTest.self, ProfileLintCommand.self, ProfileScaffoldCommand.self]
    )
}
