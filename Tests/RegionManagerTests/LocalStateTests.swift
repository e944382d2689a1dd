import Foundation
import RegionManager
import Synchronization
import Testing
import TrailMapTestSupport

@Suite struct LocalStateTests {
    func mode(_ path: String) throws -> Int {
        ((try FileManager.default.attributesOfItem(atPath: path))[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func folderIs0700AndFilesAre0600() throws {
        let tmp = TemporaryDirectory()
        let dir = tmp.file("state/trailmap")
        let state = try LocalState(directory: dir)
        var account = AccountState(server: "http://127.0.0.1:8080")
        account.token = "secret"
        try state.saveAccount(account)
        try state.saveRegistry([:])
        #expect(try mode(dir) == 0o700)
        #expect(try mode(state.accountPath) == 0o600)
        #expect(try mode(state.registryPath) == 0o600)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir)) == ["account.json", "registry.json"])
    }

    /// Hardening, finding 11: an existing folder (say `--state-dir ~`) is not chmodded; what
    /// TrailMap writes into it is 0600 all the same.
    // Hardening finding 11 (docs/notes/hardening.md).
    @Test func anExistingFolderKeepsItsMode() throws {
        let tmp = TemporaryDirectory()
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tmp.path)
        let state = try LocalState(directory: tmp.path)
        try state.saveAccount(AccountState(server: "http://127.0.0.1:8080"))
        #expect(try mode(tmp.path) == 0o755)
        #expect(try mode(state.accountPath) == 0o600)
    }

    @Test func registrySurvivesANewInstance() throws {
        let tmp = TemporaryDirectory()
        let region = InstalledRegion(
            productId: "com.x.a", title: "A", version: 2, sha256: "ab", size: 10,
            file: "/t/a.mbtiles", installedAt: Date(timeIntervalSince1970: 1_700_000_000))
        try LocalState(directory: tmp.path).updateRegistry { $0[region.productId] = region }
        var account = AccountState(server: "http://s")
        account.deviceId = "d1"
        try LocalState(directory: tmp.path).saveAccount(account)
        let reopened = try LocalState(directory: tmp.path)
        #expect(try reopened.loadRegistry() == ["com.x.a": region])
        #expect(try reopened.loadAccount() == account)
    }

    /// Processes (here threads, each with its own lock descriptor) updating the registry at once
    /// lose no entry, and leave no `registry.lock` behind.
    @Test func concurrentUpdatesLoseNothingAndLeaveNoLockFile() async throws {
        let tmp = TemporaryDirectory()
        let state = try LocalState(directory: tmp.path)
        let failures = Mutex<[String]>([])
        await onThreads(4) { t in
            for i in 0..<25 {
                let region = InstalledRegion(
                    productId: "com.x.\(t).\(i)", title: nil, version: 1, sha256: "ab", size: 10,
                    file: "/t/\(t)-\(i).mbtiles", installedAt: Date(timeIntervalSince1970: 1_700_000_000))
                do { try state.updateRegistry { $0[region.productId] = region } } catch { failures.withLock { $0.append("\(error)") } }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(try state.loadRegistry().count == 100)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: tmp.path)) == ["registry.json"])
    }

    @Test func damagedRegistryIsExplained() throws {
        let tmp = TemporaryDirectory()
        let state = try LocalState(directory: tmp.path)
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: state.registryPath))
        #expect(throws: RegionManagerError.self) { _ = try state.loadRegistry() }
    }

    @Test func defaultFolderFollowsXDG() {
        #expect(LocalState.defaultDirectory(environment: ["XDG_STATE_HOME": "/x/state", "HOME": "/h"]) == "/x/state/trailmap")
        #expect(LocalState.defaultDirectory(environment: ["HOME": "/h"]) == "/h/.local/state/trailmap")
    }

    @Test func deviceIdBelongsToServerAndAccount() {
        var a = AccountState(server: "http://s1")
        a.accountId = "acc"
        a.deviceId = "d"
        a.deviceServer = "http://s1"
        a.deviceAccountId = "acc"
        #expect(a.currentDeviceId == "d")
        a.accountId = "other"
        #expect(a.currentDeviceId == nil)
    }
}
