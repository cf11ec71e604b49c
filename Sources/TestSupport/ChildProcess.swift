import Dispatch
package import Foundation
import Synchronization

/// A child process whose standard output and standard error are read at the same time, each on its own thread,
/// while it runs.
///
/// Reading one pipe to its end before the other deadlocks as soon as the child fills the other pipe's buffer
/// (64 KiB on Linux): the child blocks writing, the parent blocks reading a pipe that never ends. Here neither
/// pipe is ever left unread, and standard input is written on a thread of its own too.
package final class ChildProcess: Sendable {
    /// What a finished child left.
    package struct Output: Sendable {
        package var status: Int32
        /// Whether it exited (`status` is its exit status) or was killed by a signal (`status` is the signal).
        package var exited: Bool
        package var stdout: Data
        package var stderr: Data

        package var standardOutput: String { String(decoding: stdout, as: UTF8.self) }
        package var standardError: String { String(decoding: stderr, as: UTF8.self) }
    }

    private let process: Mutex<Process?>
    package let processIdentifier: Int32
    private let drains: [Drain]

    /// Starts `executable arguments…`.
    /// - Parameters:
    ///   - environment: added to (and replacing entries of) this process's environment.
    ///   - stdin: written to the child's standard input, which is then closed (empty when nil).
    /// - Throws: when the executable cannot be started.
    package init(
        _ executable: URL,
        _ arguments: [String],
        environment: [String: String] = [:],
        stdin: Data? = nil
    ) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        let out = Pipe.closedOnExec()
        let err = Pipe.closedOnExec()
        let input = Pipe.closedOnExec()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        processIdentifier = process.processIdentifier
        drains = [Drain(out.fileHandleForReading), Drain(err.fileHandleForReading)]
        let writer = input.fileHandleForWriting
        let data = stdin ?? Data()
        Thread.detachNewThread {
            // A child that exits without reading gives EPIPE here; that is the child's business.
            try? writer.write(contentsOf: data)
            try? writer.close()
        }
        self.process = Mutex(process)
    }

    /// Sends `signal` to the child.
    package func send(_ signal: Int32) {
        kill(processIdentifier, signal)
    }

    /// Whether the child still runs.
    package var isRunning: Bool { process.withLock { $0?.isRunning ?? false } }

    /// Waits (blocking this thread) until the child has exited and both pipes have ended.
    package func wait() -> Output {
        let stdout = drains[0].wait()
        let stderr = drains[1].wait()
        let process = self.process.withLock { $0 }!
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus,
            exited: process.terminationReason == .exit,
            stdout: stdout,
            stderr: stderr
        )
    }

    /// Waits without blocking a thread of Swift's cooperative pool (the blocking wait runs on a thread of its own).
    package func wait() async -> Output {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.wait()) }
        }
    }

    /// Runs `executable arguments…` to the end.
    package static func run(
        _ executable: URL,
        _ arguments: [String],
        environment: [String: String] = [:],
        stdin: Data? = nil
    ) throws -> Output {
        try ChildProcess(executable, arguments, environment: environment, stdin: stdin).wait()
    }

    /// Runs `executable arguments…` to the end without blocking a thread of the cooperative pool, once one of
    /// the ``ChildProcessSlots/shared`` slots is free.
    package static func run(
        _ executable: URL,
        _ arguments: [String],
        environment: [String: String] = [:],
        stdin: Data? = nil,
        slots: ChildProcessSlots = .shared
    ) async throws -> Output {
        await slots.acquire()
        let child: ChildProcess
        do {
            child = try ChildProcess(executable, arguments, environment: environment, stdin: stdin)
        } catch {
            await slots.release()
            throw error
        }
        let output = await child.wait()
        await slots.release()
        return output
    }

    /// Reads one pipe to its end on a thread of its own.
    private final class Drain: Sendable {
        private let data = Mutex(Data())
        private let done = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                let read = handle.readDataToEndOfFile()
                data.withLock { $0 = read }
                done.signal()
            }
        }

        func wait() -> Data {
            done.wait()
            done.signal()  // a second wait returns too
            return data.withLock { $0 }
        }
    }
}
