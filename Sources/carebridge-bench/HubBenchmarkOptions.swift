import Foundation

/// `carebridge-bench hub [--bridges 100,300,1000] [--heart-rate-bridges N] [--heart-rate-seconds S]
/// [--concurrency C] [--batch-size B] [--plain-http] [--no-fsync] [--json]`.
struct HubBenchmarkOptions: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Fleet sizes, each run on a fresh PostgreSQL.
    var sizes = [100, 300, 1000]
    /// Bridges with a day of 1 Hz heart rate among them; nil: one in a hundred (10 of 1,000), at least one.
    var heartRateBridges: Int?
    /// Seconds of heart rate a heart-rate bridge sends (a day; at most a day: the check wants every reading on it).
    var heartRateSeconds = 86_400
    /// Bridges posting at the same time.
    var concurrency = 64
    /// Readings per batch: the bridge's hub channel's default.
    var batchSize = 256
    /// HTTPS (a certificate from a CA made for the run) unless `--plain-http`.
    var tls = true
    /// PostgreSQL flushes its log to disk at every commit (its default) unless `--no-fsync`.
    var durable = true
    var json = false

    init() {}

    /// Reads the options after `hub`.
    /// - Throws: ``Failure`` naming an unknown option or a value that is not a whole number above 0.
    init(parsing arguments: [String]) throws(Failure) {
        var rest = arguments[...]
        func number(_ option: String) throws(Failure) -> Int {
            guard let text = rest.popFirst(), let value = Int(text), value >= 0 else {
                throw Failure(description: "\(option) takes a whole number")
            }
            return value
        }
        while let option = rest.popFirst() {
            switch option {
            case "--bridges":
                let sizes = (rest.popFirst() ?? "").split(separator: ",").compactMap { Int($0) }
                guard !sizes.isEmpty, sizes.allSatisfy({ $0 > 0 }) else {
                    throw Failure(description: "--bridges takes sizes such as 100,300,1000")
                }
                self.sizes = sizes
            case "--heart-rate-bridges": heartRateBridges = try number(option)
            case "--heart-rate-seconds": heartRateSeconds = min(max(try number(option), 1), 86_400)
            case "--concurrency": concurrency = max(try number(option), 1)
            case "--batch-size": batchSize = min(max(try number(option), 1), 1000)
            case "--plain-http": tls = false
            case "--no-fsync": durable = false
            case "--json": json = true
            default: throw Failure(description: "unknown option \(option)")
            }
        }
    }

    /// The heart-rate bridges of a fleet of `bridges`.
    func heartRateBridges(of bridges: Int) -> Int {
        min(heartRateBridges ?? max(bridges / 100, 1), bridges)
    }
}
