/// Where a value sits in a JSON document: `tasks[0].schedule.elements[1].interval` (empty for the root).
public struct JSONPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// One step down: an object member or an array element.
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    public private(set) var components: [Component]

    /// The root of the document.
    public init() {
        components = []
    }

    /// A path of one key (`"tasks"`), or the root for `""`; for literals in code and tests.
    public init(stringLiteral key: String) {
        components = key.isEmpty ? [] : [.key(key)]
    }

    /// The member `key` of the object at this path.
    public func appending(_ key: String) -> JSONPath {
        var path = self
        path.components.append(.key(key))
        return path
    }

    /// The element `index` of the array at this path.
    public func appending(index: Int) -> JSONPath {
        var path = self
        path.components.append(.index(index))
        return path
    }

    public var isRoot: Bool { components.isEmpty }

    /// `a.b[0].c`; empty for the root.
    public var description: String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key):
                if !text.isEmpty { text += "." }
                text += key
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }
}
