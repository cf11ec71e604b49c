// The libc calls the bus thread makes (pipe, fcntl, poll, read, write, close), each checked, in the manner of
// swift-nio's `SystemCallHelpers.swift`: one wrapper retries EINTR and turns -1 into a thrown error naming the call.

#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: which one and its errno.
struct SystemCallError: Error, Sendable, CustomStringConvertible {
    var function: String
    var errno: Int32

    var description: String { "\(function) failed: \(String(cString: strerror(errno))) (errno \(errno))" }
}

/// Runs a system call, retrying while it is interrupted (EINTR); -1 becomes a `SystemCallError`.
@inline(__always)
func systemCall<T: FixedWidthInteger>(_ function: String, _ body: () -> T) throws(SystemCallError) -> T {
    while true {
        let result = body()
        guard result == -1 else { return result }
        let code = errno
        if code != EINTR { throw SystemCallError(function: function, errno: code) }
    }
}

/// `poll(2)` on `descriptors`; returns how many have events (`revents` set), 0 on timeout.
func poll(_ descriptors: inout [pollfd], timeoutMilliseconds: Int32) throws(SystemCallError) -> Int32 {
    try systemCall("poll") { Glibc.poll(&descriptors, nfds_t(descriptors.count), timeoutMilliseconds) }
}

/// Wakes a thread blocked in `poll(2)`: a pipe whose read end becomes readable. Both ends are non-blocking and
/// close-on-exec (`pipe2` and `eventfd` are not in Swift's Glibc module). Wakes coalesce: a full pipe is already
/// readable.
final class WakeupPipe: Sendable {
    /// Poll this for `POLLIN`.
    let readEnd: Int32
    private let writeEnd: Int32

    init() throws(SystemCallError) {
        var ends: [Int32] = [-1, -1]
        _ = try systemCall("pipe") { pipe(&ends) }
        do {
            for end in ends {
                let status = try systemCall("fcntl(F_GETFL)") { fcntl(end, F_GETFL) }
                _ = try systemCall("fcntl(F_SETFL)") { fcntl(end, F_SETFL, status | O_NONBLOCK) }
                _ = try systemCall("fcntl(F_SETFD)") { fcntl(end, F_SETFD, FD_CLOEXEC) }
            }
        } catch {
            for end in ends { _ = Glibc.close(end) }
            throw error
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    /// Makes the read end readable.
    func wake() {
        var byte: UInt8 = 1
        do {
            _ = try systemCall("write") { Glibc.write(writeEnd, &byte, 1) }
        } catch {
            // EAGAIN: the pipe is full, so the reader will wake anyway. Anything else is a bug in our use of it.
            precondition(error.errno == EAGAIN, "\(error)")
        }
    }

    /// Empties the pipe after a wake (the reader's side).
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let count = try? systemCall("read") { Glibc.read(readEnd, &buffer, buffer.count) }
            guard let count, count > 0 else { return }  // nil: EAGAIN, drained
        }
    }

    deinit {
        _ = Glibc.close(readEnd)
        _ = Glibc.close(writeEnd)
    }
}
