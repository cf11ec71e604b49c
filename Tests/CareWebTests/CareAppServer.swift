import Foundation
import TestSupport

/// `carebridge serve --listen 127.0.0.1:0` as a child process, as a user starts it (``ListeningProcess``).
typealias CareAppServer = ListeningProcess

extension ListeningProcess {
    /// Starts the app on `store` and waits until it prints the address it listens on.
    /// - Throws: ``ListeningProcess/Failure`` when it exits first; a timeout when it prints nothing within a minute.
    static func start(
        store: String,
        directory: URL,
        environment: [String: String]
    ) async throws -> ListeningProcess {
        try await start(
            ["serve", "--listen", "127.0.0.1:0", "--store", store],
            prefix: "care app listening on ",
            directory: directory,
            environment: environment
        )
    }
}
