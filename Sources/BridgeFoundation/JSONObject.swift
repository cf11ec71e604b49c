/// An ordered JSON object.
public struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: JSONValue
    }

    public private(set) var members: [Member]
    /// Key → position in ``members``, kept once an object has more than ``indexThreshold`` members: a search
    /// per key made an object with many keys (a crafted recording line) quadratic to parse. Small objects (every
    /// ordinary line) search their few members and allocate no dictionary.
    private var positions: [String: Int] = [:]
    private static let indexThreshold = 8

    public init() {
        members = []
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        members = []
        for (key, value) in elements { self[key] = value }
    }

    /// Makes room for `count` members at once (the parser: a recording line's five members grew the array four
    /// times).
    mutating func reserveCapacity(_ count: Int) {
        members.reserveCapacity(count)
    }

    private func position(of key: String) -> Int? {
        if members.count > Self.indexThreshold { return positions[key] }
        return members.firstIndex { $0.key == key }
    }

    private mutating func reindex() {
        positions = [:]
        guard members.count > Self.indexThreshold else { return }
        positions.reserveCapacity(members.count)
        for (index, member) in members.enumerated() { positions[member.key] = index }
    }

    /// The value for `key`; setting appends a new key or replaces an existing one in place.
    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { members[$0].value } }
        set {
            if let index = position(of: key) {
                if let newValue {
                    members[index].value = newValue
                } else {
                    members.remove(at: index)
                    reindex()
                }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
                if members.count > Self.indexThreshold + 1 {
                    positions[key] = members.count - 1
                } else if members.count == Self.indexThreshold + 1 {
                    reindex()
                }
            }
        }
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.members == rhs.members }

    public var keys: [String] { members.map(\.key) }
}
