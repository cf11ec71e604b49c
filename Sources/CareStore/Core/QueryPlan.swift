import GRDB

/// SQLite's plan for a statement (`EXPLAIN QUERY PLAN`), for tests that a query reads through an index: no
/// `SCAN` of a large table, no `USE TEMP B-TREE` to sort what an index already orders.
enum QueryPlan {
    /// The plan's lines (the `detail` column, e.g. `SEARCH r USING PRIMARY KEY (type=? AND start>?)`), in order.
    static func details(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> [String] {
        try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] }
    }
}
