extension AsyncSequence {
    /// Every element, in order (a query's decoded rows).
    func collected() async throws -> [Element] {
        var elements: [Element] = []
        for try await element in self { elements.append(element) }
        return elements
    }
}
