public import BridgeCore
public import Foundation

/// Reads the samples of a ``SampleQuery`` page by page in (start, id) order, holding one page at a time
/// (``CareStore/sampleCursor(matching:pageSize:)``).
///
/// Each page continues after the last row of the one before (keyset pagination on the store's order), so
/// samples that share a start time are neither repeated nor skipped, and reading a page costs the same at the
/// end of a large store as at its start: each type's rows are one key range sought from the cursor and the types
/// are merged in order (``SamplePageStatement``), with no sort of what is left. The query's `limit` caps the
/// total. Pages may be shorter than the page size (the `unmatchedOnly` filter), never empty. Each page is read on
/// one of GRDB's reader connections, suspending the caller (`for try await page in cursor`).
public struct SampleCursor: Sendable {
    /// A place in the (start, id) order: the start and id of the last sample read, and its type (a sample of a
    /// later type at the same start and id, which cannot occur with real ids, still follows it).
    public struct Position: Sendable, Hashable {
        public var start: Date
        public var id: UUID
        public var type: QuantityType?

        public init(start: Date, id: UUID, type: QuantityType? = nil) {
            self.start = start
            self.id = id
            self.type = type
        }
    }

    public let store: CareStore
    public let query: SampleQuery
    public let pageSize: Int
    /// After the last row read so far; nil before the first page.
    public private(set) var position: Position?
    private var remaining: Int?
    private var exhausted = false

    init(store: CareStore, query: SampleQuery, pageSize: Int) {
        self.store = store
        self.query = query
        self.pageSize = Swift.max(1, pageSize)
        self.remaining = query.limit
    }

    /// The next page (never empty), or nil when every sample has been read.
    public mutating func next() async throws(CareStoreError) -> [StoredSample]? {
        while !exhausted {
            if let remaining, remaining <= 0 { break }
            let limit = Swift.min(pageSize, remaining ?? pageSize)
            let page = try await store.samplePage(matching: query, after: position, limit: limit)
            position = page.last ?? position
            exhausted = page.exhausted
            guard !page.samples.isEmpty else { continue }
            var samples = page.samples
            if let remaining {
                samples = Array(samples.prefix(remaining))
                self.remaining = remaining - samples.count
            }
            return samples
        }
        exhausted = true
        return nil
    }
}

// MARK: - AsyncSequence

extension SampleCursor: AsyncSequence, AsyncIteratorProtocol {
    public typealias Element = [StoredSample]
    public typealias Failure = CareStoreError

    /// The cursor itself, from where it stands.
    public func makeAsyncIterator() -> SampleCursor { self }
}
