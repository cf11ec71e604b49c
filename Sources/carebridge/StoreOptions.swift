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

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The patient whose care data to read or write.",
            discussion: """
                Default: the only patient of the store (a single-patient store works without it). With several \
                patients, commands that read or write one patient's plan, events, samples or exports need it; \
                `carebridge patients` lists them. On run/replay it files every reading under this patient \
                instead of routing by the device registry.
                """,
            valueName: "id"
        )
    )
    var patient: String?

    var path: String { store ?? StoreLocation.defaultPath() }

    /// How a command uses `--patient`.
    enum PatientUse {
        /// One patient's care data: `--patient`, else the only patient; several patients and none named is an
        /// error naming them.
        case one
        /// Every patient unless `--patient` names one (routing, the outbox, devices, records by id).
        case any
    }

    /// Opens the store; floating schedules are evaluated in `zone`. Commands that only list or export pass
    /// `.existing`: a mistyped --store then creates nothing and says that there is no store, and a store this
    /// user may only read is opened read-only. The store is scoped to `--patient` (see ``PatientUse``).
    func open(
        zone: TimeZone,
        mode: CareStore.OpenMode = .create,
        patients: PatientUse = .one
    ) async throws -> CareStore {
        let store: CareStore
        do {
            store = try CareStore(path: path, bridgeZone: zone, logger: CLILogging.logger, mode: mode)
            OpenStores.shared.add(store)
        } catch {
            Output.error(error.message)
            throw ExitCode(StoreExit.storeUnavailable)
        }
        do {
            switch patients {
            case .one: return store.scoped(to: try await store.resolvePatient(patient))
            case .any:
                guard let patient else { return store }
                return store.scoped(to: try await store.resolvePatient(patient))
            }
        } catch {
            throw StoreExit.fail(error)
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

    /// What `body` returns; a store error it throws is printed and thrown as its exit code (``fail(_:)``).
    @discardableResult
    static func attempt<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as CareStoreError {
            throw fail(error)
        }
    }

    /// Prints a store error and returns the matching exit code.
    static func fail(_ error: CareStoreError) -> ExitCode {
        Output.error(error.message)
        switch error.code {
        case .taskNotFound, .taskDeleted, .eventNotFound, .alertNotFound, .sampleNotFound, .patientNotFound,
            .userNotFound:
            return ExitCode(notFound)
        case .wrongTaskKind, .futureTime, .pastTime, .patientRequired, .invalidQuery: return ExitCode(usage)
        case .versionWouldShadowOutcomes, .taskExists, .invalidTask, .invalidSample, .invalidAnswer, .invalidPatient,
            .userExists, .invalidUser:
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
