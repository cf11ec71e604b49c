import Foundation

extension HubDatabase {
    /// The servers of an address's host list (libpq's multi-host form, `HOST1:PORT1,HOST2:PORT2`; `[ADDRESS]:PORT`
    /// for IPv6; no host: `localhost`; no port: 5432), and the address with the list replaced by one name, for
    /// `URLComponents` to read the rest.
    /// - Throws: ``HubError`` `.configuration` naming the part of the list that is wrong.
    static func servers(in url: String) throws(HubError) -> (servers: [Server], single: String) {
        guard let scheme = url.range(of: "://") else {
            throw HubError(.configuration, "the database address is not postgres://USER@HOST:PORT/DATABASE")
        }
        let rest = url[scheme.upperBound...]
        let authorityEnd = rest.firstIndex { "/?#".contains($0) } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let at = authority.lastIndex(of: "@")
        let userInfo = at.map { authority[...$0] } ?? ""
        let list = at.map { authority[authority.index(after: $0)...] } ?? authority
        let single = url[..<scheme.upperBound] + userInfo + "hub-database" + rest[authorityEnd...]
        guard !list.isEmpty else { return ([Server(host: "localhost")], String(single)) }
        let items = list.split(separator: ",", omittingEmptySubsequences: false)
        var servers: [Server] = []
        for (position, item) in zip(1..., items) {
            let place = items.count == 1 ? "the database host '\(item)'" : "host \(position) '\(item)' of '\(list)'"
            var host = Substring(item)
            var port: Substring?
            if item.hasPrefix("[") {
                guard let close = item.firstIndex(of: "]") else {
                    throw HubError(.configuration, "\(place): an IPv6 address without its closing ']'")
                }
                host = item[item.index(after: item.startIndex)..<close]
                let after = item[item.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasPrefix(":") else {
                        throw HubError(.configuration, "\(place): only ':PORT' may follow ']'")
                    }
                    port = after.dropFirst()
                }
            } else if let colon = item.firstIndex(of: ":") {
                host = item[..<colon]
                port = item[item.index(after: colon)...]
            }
            guard !host.isEmpty else {
                throw HubError(.configuration, "\(place): the host name is empty")
            }
            var number = 5432
            if let port {
                guard let value = Int(port), (1...65535).contains(value) else {
                    throw HubError(.configuration, "\(place): port '\(port)' is not a number from 1 to 65535")
                }
                number = value
            }
            let server = Server(host: String(host), port: number)
            guard !servers.contains(server) else {
                throw HubError(.configuration, "\(place): \(server) is named twice")
            }
            servers.append(server)
        }
        return (servers, String(single))
    }
}
