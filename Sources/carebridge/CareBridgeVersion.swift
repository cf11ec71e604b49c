/// What `carebridge --version` prints.
enum CareBridgeVersion {
    /// Raised by the release that tags it; between releases the development line's next version.
    static let current = "0.9.0-dev"
}
