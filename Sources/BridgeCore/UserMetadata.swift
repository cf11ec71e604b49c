/// The metadata that says which user of a shared device (scale, cuff) a reading belongs to.
///
/// There are only 256 user IDs, so each one's dictionary is built once and shared: a weigh-in then costs
/// no dictionary of its own.
enum UserMetadata {
    /// `["userID": "5"]`, `["userID": "unknown"]` for 0xFF, or empty without a user ID.
    static func metadata(for userID: UInt8?) -> [String: String] {
        guard let userID else { return [:] }
        return table[Int(userID)]
    }

    private static let table: [[String: String]] = (0...255).map { id in
        ["userID": id == 0xFF ? "unknown" : String(id)]
    }
}
