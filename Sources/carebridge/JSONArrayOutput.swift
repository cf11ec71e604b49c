import BridgeFoundation

/// A JSON array printed to standard output one element at a time, exactly as `JSONValue.array(…)` would be
/// serialised whole, so a command can list millions of items without holding them.
struct JSONArrayOutput {
    let pretty: Bool
    private var count = 0

    init(pretty: Bool) {
        self.pretty = pretty
    }

    /// Prints the next element (after the opening bracket, for the first).
    mutating func append(_ value: JSONValue) {
        var text = count == 0 ? "[" : (pretty ? "," : ", ")
        if pretty { text += "\n  " }
        text += value.serialized(pretty: pretty, depth: 1)
        print(text, terminator: "")
        count += 1
    }

    /// Prints the closing bracket (`[]` when nothing was appended) and a newline.
    func finish() {
        print(count == 0 ? "[]" : (pretty ? "\n]" : "]"))
    }
}
