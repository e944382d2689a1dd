import Catalog
import Foundation
import Testing
import TrailMapTestSupport

/// Hardening, finding 5: password guessing and account farming are throttled per email and per
/// address, atomically, on both backends; password hashing runs on a bounded pool of its own.
/// Tests that must see a lock hold it 600 s: with the default 2 s first lock, a loaded machine
/// (password hashing in a debug build beside other suites) let it expire before the next attempt.
// Hardening finding 5 (docs/notes/hardening.md).
@Suite struct LoginThrottleTests {
    @Test(arguments: Backend.allCases)
    func parallelGuessesCannotSlipPastThePerEmailCount(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend, firstLock: 600)
        _ = try await f.account()
        // 40 wrong passwords at once: only the 5 free attempts may reach the password check.
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<40 {
                group.addTask { await CatalogFixture.code { _ = try await f.login("ann@example.com", "wrong password") } }
            }
            return await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
        }
        #expect(outcomes["invalid_credentials"] == 5, "\(outcomes)")
        #expect(outcomes["too_many_attempts"] == 35, "\(outcomes)")
    }

    // Hardening finding 5 (docs/notes/hardening.md).
    @Test(arguments: Backend.allCases)
    func oneAddressGuessingManyEmailsIsThrottled(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend, firstLock: 600)
        _ = try await f.account()
        for i in 0..<20 {
            #expect(
                await CatalogFixture.code { _ = try await f.login("user\(i)@example.com", "wrong password", address: "203.0.113.7") }
                    == "invalid_credentials")
        }
        // A 21st email from the same address waits, even with a right password...
        await #expect {
            try await f.login("ann@example.com", address: "203.0.113.7")
        } throws: { error in
            guard case CatalogError.tooManyAttempts(let s)? = error as? CatalogError else { return false }
            return s >= 1
        }
        #expect(await f.store.loginWait(email: "carol@example.com", address: "203.0.113.7") ?? 0 >= 1)
        // ...while another address is not affected.
        #expect(try await f.login("ann@example.com", address: "198.51.100.1").account.email == "ann@example.com")
    }

    /// Round 3, finding 5: wrong passwords for someone else's email lock the stranger's address
    /// out of that account, never the owner signing in from elsewhere.
    @Test(arguments: Backend.allCases)
    func aStrangersWrongPasswordsDoNotLockTheOwnerOut(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend, firstLock: 600)
        _ = try await f.account()
        for _ in 0..<5 {
            #expect(
                await CatalogFixture.code { _ = try await f.login("ann@example.com", "wrong password", address: "203.0.113.66") }
                    == "invalid_credentials")
        }
        // The stranger's address now waits for this account...
        #expect(
            await CatalogFixture.code { _ = try await f.login("ann@example.com", "wrong password", address: "203.0.113.66") }
                == "too_many_attempts")
        #expect(await f.store.loginWait(email: "ann@example.com", address: "203.0.113.66") ?? 0 >= 1)
        // ...and the owner, from their own address, is not asked to wait and signs in.
        #expect(await f.store.loginWait(email: "ann@example.com", address: "198.51.100.20") == nil)
        #expect(try await f.login("ann@example.com", address: "198.51.100.20").account.email == "ann@example.com")
    }

    // Hardening finding 5 (docs/notes/hardening.md).
    @Test(arguments: Backend.allCases)
    func successfulLoginsDoNotCountAgainstTheirAddress(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        _ = try await f.account()
        for _ in 0..<50 { _ = try await f.login("ann@example.com", address: "192.0.2.1") }
        #expect(await f.store.loginWait(email: "ann@example.com", address: "192.0.2.1") == nil)
    }

    // Hardening finding 5 (docs/notes/hardening.md).
    @Test(arguments: Backend.allCases)
    func aSuccessfulLoginClearsItsEmailsCount(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        _ = try await f.account()
        for _ in 0..<4 {
            #expect(await CatalogFixture.code { _ = try await f.login("Ann@Example.com", "wrong password") } == "invalid_credentials")
        }
        // The fifth attempt, right, starts the count again (it would have locked the email).
        _ = try await f.login("ann@example.com")
        #expect(await f.store.loginWait(email: "ann@example.com", address: nil) == nil)
        for _ in 0..<4 {
            #expect(await CatalogFixture.code { _ = try await f.login("ann@example.com", "wrong password") } == "invalid_credentials")
        }
        _ = try await f.login("ANN@example.com")
    }

    // Hardening finding 5 (docs/notes/hardening.md).
    @Test(arguments: Backend.allCases)
    func registrationsFromOneAddressAreThrottled(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend, firstLock: 600)
        for i in 0..<20 { _ = try await f.register("farm\(i)@example.com", "long enough password", address: "203.0.113.9") }
        await #expect {
            try await f.register("farm20@example.com", "long enough password", address: "203.0.113.9")
        } throws: { error in
            guard case CatalogError.tooManyAttempts? = error as? CatalogError else { return false }
            return true
        }
        _ = try await f.register("farm20@example.com", "long enough password", address: "198.51.100.2")
        #expect(try await f.count("accounts") == 21)
    }

    // Hardening finding 5 (docs/notes/hardening.md).
    @Test func thePoolRunsAtMostItsWorkersAndRefusesBeyondItsQueue() async throws {
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
            // (Waited for without blocking a thread of the shared pool: the job's task needs one.)
            while started.wait(timeout: .now()) == .timedOut { try? await Task.sleep(for: .milliseconds(5)) }
            for _ in 0..<2 { group.addTask { (try? await pool.run { () throws(CatalogError) in "waited" }) ?? "refused" } }
            while pool.waiting < 2 { try? await Task.sleep(for: .milliseconds(5)) }
            for _ in 0..<5 {
                group.addTask {
                    do { return try await pool.run { () throws(CatalogError) in "ran" } } catch {
                        return (error as? CatalogError)?.code ?? "other"
                    }
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
