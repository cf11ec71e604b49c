/// The device profiles shipped in `Devices/`, compiled into the module by the EmbedDeviceProfiles build plugin
/// (`files` is generated from `Devices/*.json` at build time), so that any copy of the binary has them.
public enum BuiltInProfiles {
    /// Where a built-in profile is said to come from in messages and `profile test` output.
    public static func origin(of name: String) -> String { "built-in Devices/\(name)" }

    /// How many profiles are built in (``files``: each file's name and text, in name order).
    public static var count: Int { files.count }
}
