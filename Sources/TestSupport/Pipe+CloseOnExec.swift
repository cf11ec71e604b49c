package import Foundation
import Glibc

extension Pipe {
    /// A pipe whose two ends are closed in every program the tests start, except as the standard input, output or
    /// error of the one child it is given to (`Process` puts it there with `dup2`, which clears the flag).
    ///
    /// The tests start children from many tasks at once. A plain `Pipe()`'s ends are inherited by every child
    /// started while they are open: a long-lived one (a broker, a database) then holds the write end of a short one's
    /// output, so reading that output to its end waits until the long-lived one exits, and the test, or the whole
    /// cooperative pool, hangs (seen: `openssl`'s standard error held open by a `mosquitto` started meanwhile).
    package static func closedOnExec() -> Pipe {
        let pipe = Pipe()
        for handle in [pipe.fileHandleForReading, pipe.fileHandleForWriting] {
            let descriptor = handle.fileDescriptor
            _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
        }
        return pipe
    }
}
