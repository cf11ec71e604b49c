import ArgumentParser
import Foundation

/// `--mode` for commands that write a file: octal permission bits, e.g. 0640. Default 0600 (health data).
struct FileMode: ExpressibleByArgument, Equatable {
    var bits: mode_t

    static let `private` = FileMode(bits: 0o600)

    init(bits: mode_t) { self.bits = bits }

    init?(argument: String) {
        guard (3...4).contains(argument.count), let value = mode_t(argument, radix: 8), value <= 0o777 else {
            return nil
        }
        bits = value
    }

    var defaultValueDescription: String { String(bits, radix: 8).leftPadded(to: 4) }

    static let help = ArgumentHelp(
        "Permission bits of the written file, in octal (default 0600: only you can read it).",
        valueName: "octal"
    )
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
