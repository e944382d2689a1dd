import Catalog
import Foundation
import Testing
import TrailMapTestSupport

/// Hardening, finding 5: password guessing and account farming are throttled per email and per
/// address, atomically; password hashing runs on a bounded pool of its own.
@Suite struct LoginThrottleTests {
    @Test func finding5_parallelGuessesCannotSlipPastThePerEmailCount() async throws {
        let f = try CatalogFixture()
        _ = try f.account()
        let db = f.db
        // 40 wrong passwords at once: only the 5 free attempts may reach the password check.
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    do { _ = try db.login(email: "ann@example.com", password: "wrong password"); return "ok" } catch {
                        return (error as? CatalogError)?.code ?? "other"
                    }
                }
            }
            return await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
        }
        #expect(outcomes["invalid_credentials"] == 5, "\(outcomes)")
        #expect(outcomes["too_many_attempts"] == 35, "\(outcomes)")
    }

    @Test func finding5_oneAddressGuessingManyEmailsIsThrottled() throws {
        let f = try CatalogFixture()
        _ = try f.account()
        for i in 0..<20 {
            #expect(throws: CatalogError.invalidCredentials) {
                try f.db.login(email: "user\(i)@example.com", password: "wrong password", address: "203.0.113.7")
            }
        }
        // A 21st email from the same address waits, even with a right password...
        #expect { try f.db.login(email: "ann@example.com", password: "correct horse battery", address: "203.0.113.7") } throws: { error in
            guard case CatalogError.tooManyAttempts(let s)? = error as? CatalogError else { return false }
            return s >= 1
        }
        // ...while another address is not affected.
        #expect(try f.db.login(email: "ann@example.com", password: "correct horse battery", address: "198.51.100.1").account.email
                == "ann@example.com")
    }

    @Test func finding5_successfulLoginsDoNotCountAgainstTheirAddress() throws {
        let f = try CatalogFixture()
        _ = try f.account()
        for _ in 0..<50 {
            _ = try f.db.login(email: "ann@example.com", password: "correct horse battery", address: "192.0.2.1")
        }
        #expect(f.db.loginWait(email: "ann@example.com", address: "192.0.2.1") == nil)
    }

    @Test func finding5_registrationsFromOneAddressAreThrottled() throws {
        let f = try CatalogFixture()
        for i in 0..<20 {
            _ = try f.db.register(email: "farm\(i)@example.com", password: "long enough password", address: "203.0.113.9")
        }
        #expect { try f.db.register(email: "farm20@example.com", password: "long enough password", address: "203.0.113.9") } throws: { error in
            guard case CatalogError.tooManyAttempts? = error as? CatalogError else { return false }
            return true
        }
        _ = try f.db.register(email: "farm20@example.com", password: "long enough password", address: "198.51.100.2")
    }

    @Test func finding5_thePoolRunsAtMostItsWorkersAndRefusesBeyondItsQueue() async throws {
        let pool = KeyDerivationPool(workers: 1, queueLimit: 2)
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        // One job holds the only thread; two wait; the rest are refused at once.
        let outcomes = await withTaskGroup(of: String.self) { group in
            group.addTask {
                (try? await pool.run { () throws(CatalogError) in
                    started.signal()
                    gate.wait()
                    return KeyDerivationPool.onPoolThread ? "on the pool" : "elsewhere"
                }) ?? "refused"
            }
            started.wait()
            for _ in 0..<2 { group.addTask { (try? await pool.run { () throws(CatalogError) in "waited" }) ?? "refused" } }
            while pool.waiting < 2 { try? await Task.sleep(for: .milliseconds(5)) }
            for _ in 0..<5 {
                group.addTask {
                    do { return try await pool.run { () throws(CatalogError) in "ran" } } catch { return (error as? CatalogError)?.code ?? "other" }
                }
            }
            // The refusals come back while the thread is still held.
            var seen: [String] = []
            for await o in group {
                seen.append(o)
                if seen.filter({ $0 == "busy" }).count == 5 { gate.signal() }
            }
            return seen
        }
        #expect(outcomes.filter { $0 == "busy" }.count == 5, "\(outcomes)")
        #expect(outcomes.filter { $0 == "waited" }.count == 2, "\(outcomes)")
        #expect(outcomes.contains("on the pool"), "the work ran on the pool's own thread: \(outcomes)")
    }
}
