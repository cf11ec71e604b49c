import ArgumentParser
import CareStore
import Foundation
import Logging

/// The `--store` option every store command shares.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The care-plan store file.",
            discussion: """
                Default: $CAREBRIDGE_STORE, else $XDG_DATA_HOME/carebridge/store.sqlite, else \
                ~/.local/share/carebridge/store.sqlite. Created with mode 0600 in a 0700 directory.
                """,
            valueName: "path"
        )
    )
    var store: String?

    var path: String { store ?? StoreLocation.defaultPath() }

    /// Opens the store; floating schedules are evaluated in `zone`. Commands that only list or export pass
    /// `.existing`: a mistyped --store then creates nothing and says that there is no store, and a store this
    /// user may only read is opened read-only.
    func open(zone: TimeZone, mode: CareStore.OpenMode = .create) throws -> CareStore {
        do {
            return try CareStore(path: path, bridgeZone: zone, logger: CLILogging.logger, mode: mode)
        } catch {
            Output.error(error.message)
            throw ExitCode(StoreExit.storeUnavailable)
        }
    }
}

/// Exit statuses of the store commands (documented in each command's --help).
enum StoreExit {
    static let notFound: Int32 = 1
    static let usage: Int32 = 64
    static let invalidData: Int32 = 65
    static let noInput: Int32 = 66
    static let storeUnavailable: Int32 = 74

    static let help = """
        Exit status: 0 done; 1 no such task or event; 64 bad arguments (unknown type, unit or time); \
        65 refused data (implausible value, malformed plan, a change that would rewrite recorded outcomes); \
        66 file not readable; 74 the store cannot be opened or written.
        """

    /// Prints a store error and returns the matching exit code.
    static func fail(_ error: CareStoreError) -> ExitCode {
        Output.error(error.message)
        switch error.code {
        case .taskNotFound, .taskDeleted, .eventNotFound, .alertNotFound, .sampleNotFound, .patientNotFound:
            return ExitCode(notFound)
        case .wrongTaskKind, .futureTime, .patientRequired: return ExitCode(usage)
        case .versionWouldShadowOutcomes, .taskExists, .invalidTask, .invalidSample, .invalidAnswer, .invalidPatient:
            return ExitCode(invalidData)
        case .storeLocation, .corruptRow, .database: return ExitCode(storeUnavailable)
        }
    }
}

/// The command-line tool's logger: warnings and errors on standard error, `CAREBRIDGE_LOG_LEVEL` to change.
enum CLILogging {
    static let logger: Logger = {
        var logger = Logger(label: "carebridge", factory: { TerminalText.logHandler(label: $0) })
        let level = ProcessInfo.processInfo.environment["CAREBRIDGE_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
        logger.logLevel = level ?? .warning
        return logger
    }()
}
