public import BridgeCore
public import Foundation
import GRDB

/// One persisted session variable of a device (`carebridge devices list`).
public struct StoredSessionVariable: Sendable, Hashable {
    public var device: String
    public var profile: String
    public var name: String
    public var value: SessionValue
    public var updatedAt: Date
}

extension CareStore {
    /// The session variables kept for a device under a profile (empty on first contact).
    public func sessionVariables(device: String, profile: String) async throws(CareStoreError) -> SessionVariables {
        try await read { db in
            var variables: SessionVariables = [:]
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT name, integerValue, bytesValue FROM deviceSessionVariable
                    WHERE device = ? AND profile = ?
                    """,
                arguments: [device, profile]
            )
            for row in rows {
                let name: String = row["name"]
                if let integer: Int = row["integerValue"] {
                    variables[name] = .integer(integer)
                } else if let data: Data = row["bytesValue"] {
                    variables[name] = .bytes(Array(data))
                }
            }
            return variables
        }
    }

    /// Saves a session's persisted variables in one transaction; a nil value removes the variable.
    public func saveSessionVariables(
        _ variables: [String: SessionValue?],
        device: String,
        profile: String,
        at time: Date = Date()
    ) async throws(CareStoreError) {
        try await write { db in
            for (name, value) in variables.sorted(by: { $0.key < $1.key }) {
                switch value {
                case nil:
                    try db.execute(
                        sql: "DELETE FROM deviceSessionVariable WHERE device = ? AND profile = ? AND name = ?",
                        arguments: [device, profile, name]
                    )
                case .integer(let integer):
                    try db.execute(
                        sql: """
                            INSERT OR REPLACE INTO deviceSessionVariable
                                (device, profile, name, integerValue, bytesValue, updatedAt)
                            VALUES (?, ?, ?, ?, NULL, ?)
                            """,
                        arguments: [device, profile, name, integer, time.timeIntervalSince1970]
                    )
                case .bytes(let bytes):
                    try db.execute(
                        sql: """
                            INSERT OR REPLACE INTO deviceSessionVariable
                                (device, profile, name, integerValue, bytesValue, updatedAt)
                            VALUES (?, ?, ?, NULL, ?, ?)
                            """,
                        arguments: [device, profile, name, Data(bytes), time.timeIntervalSince1970]
                    )
                }
            }
        }
    }

    /// Every persisted session variable, by device, profile and name.
    public func allSessionVariables() async throws(CareStoreError) -> [StoredSessionVariable] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT device, profile, name, integerValue, bytesValue, updatedAt FROM deviceSessionVariable
                    ORDER BY device, profile, name
                    """
            ).compactMap { row in
                let value: SessionValue
                if let integer: Int = row["integerValue"] {
                    value = .integer(integer)
                } else if let data: Data = row["bytesValue"] {
                    value = .bytes(Array(data))
                } else {
                    return nil
                }
                return StoredSessionVariable(
                    device: row["device"],
                    profile: row["profile"],
                    name: row["name"],
                    value: value,
                    updatedAt: Date(timeIntervalSince1970: row["updatedAt"])
                )
            }
        }
    }
}
