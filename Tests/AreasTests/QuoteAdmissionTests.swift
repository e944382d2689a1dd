@testable import Areas
import Foundation
import Synchronization
import Testing

/// Hardening round 3, findings 1 and 3: area cutting is shared fairly. One account cannot hold
/// more than one place, the rest wait their turn instead of being refused, rates hold per
/// account and per address, and the unbought-quote space is shared out with a reserve.
@Suite struct QuoteAdmissionTests {
    static func code(_ body: () async throws -> Void) async -> String? {
        do { try await body() } catch { return (error as? AreaError)?.code ?? "\(error)" }
        return nil
    }

    @Test func oneQuoteInFlightPerAccountAndOthersWaitTheirTurn() async throws {
        let gate = QuoteAdmission(limits: .init(maxConcurrentCuts: 1))
        let a = try await gate.enter(account: "a", address: "198.51.100.1")
        // The same account again, while its first quote is cut: refused at once.
        #expect(await Self.code { _ = try await gate.enter(account: "a", address: "198.51.100.9") } == "quote_in_progress")
        // Another account waits for the slot instead of being refused.
        let admitted = Mutex<[String]>([])
        let b = Task {
            let t = try await gate.enter(account: "b", address: "203.0.113.2")
            admitted.withLock { $0.append("b") }
            return t
        }
        for _ in 0..<200 where gate.counts.waiting == 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(gate.counts == (running: 1, waiting: 1))
        #expect(admitted.withLock { $0 }.isEmpty, "b must wait while a holds the only slot")
        gate.leave(a)
        let tb = try await b.value
        #expect(admitted.withLock { $0 } == ["b"] && gate.counts == (running: 1, waiting: 0))
        gate.leave(tb)
        #expect(gate.counts == (running: 0, waiting: 0))
        // a may quote again once its quote is done.
        gate.leave(try await gate.enter(account: "a", address: "198.51.100.1"))
    }

    @Test func addressesHoldAtMostTheirShareInFlight() async throws {
        let gate = QuoteAdmission(limits: .init(maxConcurrentCuts: 4, perAddressInFlight: 2))
        let t1 = try await gate.enter(account: "a", address: "192.0.2.7")
        let t2 = try await gate.enter(account: "b", address: "192.0.2.7")
        #expect(await Self.code { _ = try await gate.enter(account: "c", address: "192.0.2.7") } == "quote_in_progress")
        gate.leave(try await gate.enter(account: "c", address: "192.0.2.8"))
        gate.leave(t1)
        gate.leave(try await gate.enter(account: "c", address: "192.0.2.7"))
        gate.leave(t2)
    }

    @Test func ratesHoldPerAccountAndPerAddressOverTheirWindow() async throws {
        let gate = QuoteAdmission(limits: .init(perAccountPerWindow: 3, perAddressPerWindow: 5, window: 600))
        let start = Date()
        for i in 0..<3 { gate.leave(try await gate.enter(account: "a", address: "192.0.2.1", now: start.addingTimeInterval(Double(i)))) }
        await #expect {
            _ = try await gate.enter(account: "a", address: "192.0.2.99", now: start.addingTimeInterval(10))
        } throws: { error in
            guard case AreaError.tooManyQuotes(let wait)? = error as? AreaError else { return false }
            return wait == 590
        }
        // Other accounts from the same address share its rate: two more, then refused.
        gate.leave(try await gate.enter(account: "b", address: "192.0.2.1", now: start.addingTimeInterval(11)))
        gate.leave(try await gate.enter(account: "c", address: "192.0.2.1", now: start.addingTimeInterval(12)))
        #expect(
            await Self.code { _ = try await gate.enter(account: "d", address: "192.0.2.1", now: start.addingTimeInterval(13)) }
                == "too_many_quotes")
        // Once the window has passed, the account quotes again.
        gate.leave(try await gate.enter(account: "a", address: "192.0.2.1", now: start.addingTimeInterval(601)))
    }

    @Test func theWaitingLineIsBounded() async throws {
        let gate = QuoteAdmission(limits: .init(maxConcurrentCuts: 1, maxWaiting: 1))
        let a = try await gate.enter(account: "a", address: nil)
        let b = Task { try await gate.enter(account: "b", address: nil) }
        for _ in 0..<200 where gate.counts.waiting == 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(await Self.code { _ = try await gate.enter(account: "c", address: nil) } == "busy")
        gate.leave(a)
        gate.leave(try await b.value)
    }

    @Test func theQuoteSpaceIsSharedWithAReserveForNewcomers() {
        var fair = AreaQuoteFairness()
        fair.accountShare = 0.1
        fair.addressShare = 0.25
        fair.reservedShare = 0.2
        let space = QuoteSpace(total: 1000, fairness: fair)
        // An account may hold its share (at least one quote's cap), no more.
        #expect(space.refusal(waiting: 0, account: 0, address: 0, largest: 100) == nil)
        #expect(space.refusal(waiting: 100, account: 100, address: 100, largest: 100)?.code == "quote_space_used")
        // An address may hold a quarter of the space, whatever accounts it uses.
        #expect(space.refusal(waiting: 200, account: 0, address: 200, largest: 50) == nil)
        #expect(space.refusal(waiting: 250, account: 0, address: 250, largest: 50)?.code == "quote_space_used")
        // Past 80% only an account holding no quote may quote: the many can't lock out a newcomer.
        #expect(space.refusal(waiting: 750, account: 50, address: 0, largest: 100)?.code == "busy")
        #expect(space.refusal(waiting: 750, account: 0, address: 0, largest: 100) == nil)
        #expect(space.refusal(waiting: 950, account: 0, address: 0, largest: 100)?.code == "busy")
    }

    @Test func addressesAreChargedForTheirQuotesUntilTheyExpire() {
        let space = QuoteSpace(total: 1000, fairness: AreaQuoteFairness())
        let now = Date()
        space.record(id: "q1", bytes: 300, address: "192.0.2.1", until: now.addingTimeInterval(900))
        space.record(id: "q2", bytes: 200, address: "192.0.2.1", until: now.addingTimeInterval(10))
        #expect(space.held(by: "192.0.2.1", now: now) == 500)
        #expect(space.held(by: "192.0.2.2", now: now) == 0 && space.held(by: nil, now: now) == 0)
        space.forget(id: "q1")
        #expect(space.held(by: "192.0.2.1", now: now) == 200, "a bought quote no longer counts")
        #expect(space.held(by: "192.0.2.1", now: now.addingTimeInterval(60)) == 0, "an expired one neither")
    }
}
