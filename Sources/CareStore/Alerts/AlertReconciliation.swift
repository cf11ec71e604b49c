/// What re-evaluating the rules did.
public struct AlertReconciliation: Sendable, Hashable {
    public var raised: [Int64] = []
    public var updated: [Int64] = []
    public var withdrawn: [Int64] = []

    public init() {}
}
