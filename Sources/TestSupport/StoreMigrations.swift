/// The store's migrations in the order a new store applies them: what every test that checks a store's applied
/// migrations compares with (one list to extend when a migration is added).
public enum StoreMigrations {
    public static let all = [
        "v1", "v2-outbox", "v3-time-ordered-sample-ids", "v4-answers-and-notes", "v5-alerts", "v6-sample-safety",
        "v7-session-variables", "v8-people", "v9-outcome-sample-id-blob", "v10-compact-samples",
        "v11-sample-aggregates", "v12-app-users", "v13-sample-review", "v14-outcome-undo", "v15-device-battery",
        "v16-series-indexes", "v17-alert-delivery-failures", "v18-user-time-zone", "v19-outcome-outbox",
        "v20-outbox-channel-types", "v21-hub-changes", "v22-task-names", "v23-hub-quarantine",
        "v24-task-version-outbox",
    ]

    /// The migrations after `name` (a store made by an older release gains these).
    public static func after(_ name: String) -> [String] {
        guard let index = all.firstIndex(of: name) else { preconditionFailure("no migration \(name)") }
        return Array(all[(index + 1)...])
    }
}
