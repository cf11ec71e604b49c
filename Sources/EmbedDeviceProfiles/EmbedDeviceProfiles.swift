import Foundation
import PackagePlugin

/// Build-tool plugin of `DeviceProfiles`: compiles every `Devices/*.json` into the module as source, so that the
/// built-in profiles travel with the binary (a copied or packaged `carebridge` needs no `Devices/` beside it).
@main struct EmbedDeviceProfiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let devices = context.package.directoryURL.appending(path: "Devices")
        let profiles = try FileManager.default.contentsOfDirectory(at: devices, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "BuiltInProfiles+Files.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(profiles.count) device profiles from Devices/",
                executable: try context.tool(named: "device-profile-embedder").url,
                arguments: [output.path] + profiles.map(\.path),
                inputFiles: profiles,
                outputFiles: [output]
            )
        ]
    }
}
