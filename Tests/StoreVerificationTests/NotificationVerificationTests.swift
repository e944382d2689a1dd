import Foundation
import Testing
import TrailMapTestSupport
@testable import StoreVerification

@Suite(.computeThreads) struct NotificationVerificationTests {
    @Test(arguments: ["REFUND", "REVOKE"])
    func revocationVerifiesWithItsTransaction(type: String) async throws {
        let fixture = try StoreFixture()
        let (_, purchase) = try fixture.purchase()
        let payload = try fixture.store.signNotification(type: type, transaction: purchase)
        let verified = try await fixture.verifier().verifyNotification(payload)
        #expect(verified.notification.notificationType == type)
        #expect(verified.notification.version == "2.0")
        #expect(UUID(uuidString: verified.notification.notificationUUID) != nil)
        #expect(verified.notification.data?.bundleId == "com.trailmap.app")
        let transaction = try #require(verified.transaction)
        #expect(transaction.transactionId == purchase.transactionId)
        #expect(transaction.originalTransactionId == purchase.originalTransactionId)
        #expect(transaction.revocationDate != nil)
        #expect(transaction.revocationReason == 0)
    }

    @Test func refundReversedClearsRevocationAndUUIDsAreFresh() async throws {
        let fixture = try StoreFixture()
        let (_, purchase) = try fixture.purchase()
        let verifier = try fixture.verifier()
        let refund = try await verifier.verifyNotification(try fixture.store.signNotification(type: "REFUND", transaction: purchase))
        let reversed = try await verifier.verifyNotification(
            try fixture.store.signNotification(type: "REFUND_REVERSED", transaction: try #require(refund.transaction)))
        #expect(reversed.transaction?.revocationDate == nil)
        #expect(reversed.transaction?.revocationReason == nil)
        #expect(refund.notification.notificationUUID != reversed.notification.notificationUUID)
    }

    @Test func notificationFromAnotherStoreFails() async throws {
        let fixture = try StoreFixture()
        let other = try StoreFixture()
        let (_, purchase) = try other.purchase()
        let payload = try other.store.signNotification(type: "REFUND", transaction: purchase)
        await expectVerificationError({ _ = try await fixture.verifier().verifyNotification(payload) }) { $0 == .untrustedRoot }
    }

    @Test func innerTransactionIsVerifiedToo() async throws {
        let fixture = try StoreFixture()
        let other = try StoreFixture()
        let (foreign, _) = try other.purchase()
        // A correctly signed notification wrapping a transaction signed by an untrusted store.
        let notification = StoreNotification(
            notificationType: "REFUND", notificationUUID: UUID().uuidString,
            data: StoreNotificationData(bundleId: "com.trailmap.app", environment: "Sandbox", signedTransactionInfo: foreign),
            signedDate: SandboxStore.milliseconds(Date()))
        let payload = try fixture.store.sign(notification)
        await expectVerificationError({ _ = try await fixture.verifier().verifyNotification(payload) }) { $0 == .untrustedRoot }
    }

    @Test func notificationClaimsAreChecked() async throws {
        let fixture = try StoreFixture()
        let now = SandboxStore.milliseconds(Date())
        func signed(_ data: StoreNotificationData?) throws -> String {
            try fixture.store.sign(
                StoreNotification(
                    notificationType: "TEST", notificationUUID: UUID().uuidString,
                    data: data, signedDate: now))
        }
        let verifier = try fixture.verifier()
        let test = try await verifier.verifyNotification(
            try signed(StoreNotificationData(bundleId: "com.trailmap.app", environment: "Sandbox", signedTransactionInfo: nil)))
        #expect(test.transaction == nil)
        await expectVerificationError({
            _ = try await verifier.verifyNotification(
                try signed(StoreNotificationData(bundleId: "com.evil", environment: "Sandbox", signedTransactionInfo: nil)))
        }) { $0 == .wrongBundleId(expected: "com.trailmap.app", got: "com.evil") }
        await expectVerificationError({
            _ = try await verifier.verifyNotification(
                try signed(StoreNotificationData(bundleId: "com.trailmap.app", environment: "Production", signedTransactionInfo: nil)))
        }) { $0 == .wrongEnvironment(expected: .sandbox, got: "Production") }
        await expectVerificationError({ _ = try await verifier.verifyNotification(try signed(nil)) }) {
            if case .malformedPayload = $0 { return true } else { return false }
        }
        // A transaction JWS is not a notification.
        await expectVerificationError({ _ = try await verifier.verifyNotification(try fixture.purchase().jws) }) {
            if case .malformedPayload = $0 { return true } else { return false }
        }
    }

    @Test func appAppleIdIsCheckedInProduction() async throws {
        var options = SandboxStoreOptions()
        options.environment = .production
        let fixture = try StoreFixture(options: options)
        let verifier = try SignedDataVerifier(
            rootCertificates: [fixture.store.rootCertificateDER], bundleId: "com.trailmap.app",
            environment: .production, appAppleId: 1234)
        let payload = try fixture.store.sign(
            StoreNotification(
                notificationType: "TEST", notificationUUID: UUID().uuidString,
                data: StoreNotificationData(
                    appAppleId: 999, bundleId: "com.trailmap.app", environment: "Production",
                    signedTransactionInfo: nil),
                signedDate: SandboxStore.milliseconds(Date())))
        await expectVerificationError({ _ = try await verifier.verifyNotification(payload) }) {
            $0 == .wrongAppAppleId(expected: 1234, got: 999)
        }
    }
}
