public import Foundation
import GRDB

/// A store operation that failed: what (``code``), a sentence for people (``message``), and the task, version,
/// occurrence and date involved where there is one.
public struct CareStoreError: Error, Sendable, CustomStringConvertible {
    /// The closed set of failures the store reports.
    public enum Code: String, Sendable, Hashable {
        /// The store file or its directory could not be created or opened.
        case storeLocation
        /// A task with this id already exists (``CareStore/addTask(_:at:)``).
        case taskExists
        /// The task content is not valid (empty id, bad schedule, linkage on an intervention, …).
        case invalidTask
        /// No task has this id (or every version of it is deleted).
        case taskNotFound
        /// The task exists but is deleted.
        case taskDeleted
        /// A new task version would take effect at or before an event that already has an outcome.
        case versionWouldShadowOutcomes
        /// The task has no event with this occurrence index, or no event at this time.
        case eventNotFound
        /// The operation does not apply to this kind of task (e.g. completing a linked assessment by hand).
        case wrongTaskKind
        /// An answer that does not fit the task's answer format (outside the scale, not an option, …), or an
        /// answer given to a task that asks for none.
        case invalidAnswer
        /// A completion time in the future (allowed only when forced).
        case futureTime
        /// A reading typed in by hand measured so long ago that it is likely a typo and would re-evaluate much
        /// history (allowed only when forced).
        case pastTime
        /// No alert has this id.
        case alertNotFound
        /// No live sample has this id (or not one that the operation applies to).
        case sampleNotFound
        /// A sample that cannot be stored (unit not convertible to its type's canonical unit, not finite, …).
        case invalidSample
        /// No live patient (or contact, or plan) has this id; the message lists the ones there are.
        case patientNotFound
        /// The store has several patients and the operation needs to know which (`--patient`); the message lists
        /// them.
        case patientRequired
        /// Patient, plan or contact content that cannot be stored (bad id, empty name, a task of another plan).
        case invalidPatient
        /// No user of the care app has this id.
        case userNotFound
        /// A user with this id exists already.
        case userExists
        /// User content that cannot be stored (an empty or unusual id, a patient that does not exist).
        case invalidUser
        /// A query the store cannot answer as asked (days that are not `yyyy-MM-dd`).
        case invalidQuery
        /// A value stored in the database could not be read back (corrupt row, unknown enum).
        case corruptRow
        /// SQLite reported an error; ``cause`` holds GRDB's `DatabaseError`.
        case database
    }

    public var code: Code
    public var message: String
    /// The task id (the developer id, stable across versions).
    public var taskID: String?
    /// The task version involved.
    public var version: UUID?
    /// The date the check failed on (e.g. the start of the event whose outcome would be shadowed).
    public var date: Date?
    public var occurrence: Int?
    public var cause: (any Error)?
    public var file: String
    public var line: Int

    public init(
        _ code: Code,
        _ message: String,
        taskID: String? = nil,
        version: UUID? = nil,
        date: Date? = nil,
        occurrence: Int? = nil,
        cause: (any Error)? = nil,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.taskID = taskID
        self.version = version
        self.date = date
        self.occurrence = occurrence
        self.cause = cause
        self.file = file
        self.line = line
    }

    public var description: String { message }
}

extension CareStoreError {
    /// Whether SQLite gave up because the disk (or the temporary directory) is full (`SQLITE_FULL`).
    public var isDiskFull: Bool {
        (cause as? DatabaseError)?.resultCode == .SQLITE_FULL
    }
}
