import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Why a TCP connection to the broker could not be opened, in words (`connection refused`, `the host name does not
/// resolve`, `no answer within 10 s`) instead of NIO's error values, which name its types and addresses twice.
enum ConnectFailureReason {
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as NIOConnectionError:
            if let first = error.connectionErrors.first { return describe(first.error) }
            if error.dnsAError != nil || error.dnsAAAAError != nil { return "the host name does not resolve" }
            return "the host name has no address"
        case let error as IOError:
            return errnoText(error.errnoCode)
        case ChannelError.connectTimeout(let amount):
            return "no answer within \(seconds(amount))"
        case let error as ChannelError:
            return "\(error)"
        default:
            return "\(error)"
        }
    }

    /// `strerror` in lower case, as it reads inside a sentence: `connection refused`, `network is unreachable`.
    static func errnoText(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        return text.prefix(1).lowercased() + text.dropFirst()
    }

    static func seconds(_ amount: TimeAmount) -> String {
        let value = Double(amount.nanoseconds) / 1e9
        return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
