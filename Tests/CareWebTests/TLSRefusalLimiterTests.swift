import Testing

@testable import CareWeb

/// Which refused TLS handshakes are logged: a peer's first at once, the rest of its window summed up, none lost from
/// the count, and no more than the capacity's peers followed.
@Suite struct TLSRefusalLimiterTests {
    typealias Summary = TLSRefusalLimiter.Summary

    @Test func aPeersFirstRefusalIsLoggedAndTheRestOfItsWindowSummedUpWhenItEnds() {
        var limiter = TLSRefusalLimiter(window: .seconds(60), capacity: 8)
        let first = limiter.refused(peer: "10.0.0.7", reason: "expired", at: .zero)
        #expect(first.log && first.due.isEmpty)
        for second in 1...19 {
            let reason = second <= 10 ? "expired" : "other CA"
            let later = limiter.refused(peer: "10.0.0.7", reason: reason, at: .seconds(second))
            #expect(!later.log && later.due.isEmpty, "counted, not logged")
        }
        #expect(limiter.refused(peer: "10.0.0.8", reason: "expired", at: .seconds(30)).log, "another peer's own window")
        #expect(limiter.nextEnd == .seconds(60))
        #expect(limiter.ended(at: .seconds(59)).isEmpty)
        #expect(
            limiter.ended(at: .seconds(60)) == [
                Summary(
                    peer: "10.0.0.7",
                    reasons: [.init(words: "expired", count: 10), .init(words: "other CA", count: 9)]
                )
            ]
        )
        #expect(limiter.peerCount == 1 && limiter.nextEnd == .seconds(90))
        #expect(limiter.ended(at: .seconds(90)).isEmpty, "a window with nothing counted ends without a summary")
        #expect(limiter.refused(peer: "10.0.0.7", reason: "expired", at: .seconds(95)).log, "a new window")
    }

    @Test func aPeersNextRefusalAfterItsWindowIsLoggedWithTheSummaryOfTheWindowBefore() {
        var limiter = TLSRefusalLimiter(window: .seconds(60), capacity: 8)
        _ = limiter.refused(peer: "10.0.0.7", reason: "expired", at: .zero)
        _ = limiter.refused(peer: "10.0.0.7", reason: "expired", at: .seconds(5))
        let next = limiter.refused(peer: "10.0.0.7", reason: "expired", at: .seconds(61))
        #expect(next.log)
        #expect(next.due == [Summary(peer: "10.0.0.7", reasons: [.init(words: "expired", count: 1)])])
        _ = limiter.refused(peer: "10.0.0.7", reason: "expired", at: .seconds(62))
        #expect(limiter.closeAll() == [Summary(peer: "10.0.0.7", reasons: [.init(words: "expired", count: 1)])])
        #expect(limiter.peerCount == 0 && limiter.nextEnd == nil)
    }

    @Test func manyPeersKeepAtMostTheCapacityAndNoRefusalLeavesTheCount() {
        var limiter = TLSRefusalLimiter(window: .seconds(60), capacity: 16)
        var logged = 0
        var summed = 0
        for index in 0..<3_000 {
            let peer = "10.0.0.\(index / 10 % 40)"  // 40 peers in turn, ten refusals each
            let outcome = limiter.refused(peer: peer, reason: "expired", at: .milliseconds(index))
            if outcome.log { logged += 1 }
            summed += outcome.due.reduce(0) { $0 + $1.count }
            #expect(limiter.peerCount <= 16)
        }
        summed += limiter.closeAll().reduce(0) { $0 + $1.count }
        #expect(logged + summed == 3_000, "each refusal logged or summed up once")
        #expect(logged == 300, "each run of ten: the first logged, nine summed up")
    }
}
