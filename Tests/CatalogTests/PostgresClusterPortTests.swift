import Foundation
import Testing
import TrailMapTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The tests' own PostgreSQL clusters and their ports: a port another process holds for a moment
/// (a test client's connection takes its port from the same range) is waited for at a restart,
/// not reported as a failed test.
@Suite struct PostgresClusterPortTests {
    /// Listens on 127.0.0.1:`port` (as another process would hold it); the descriptor.
    static func hold(_ port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard fd >= 0, bound, listen(fd, 1) == 0 else {
            close(fd)
            throw PostgresTestServerError(message: "cannot hold port \(port): errno \(errno)")
        }
        return fd
    }

    @Test func aRestartWaitsForItsPortWhileAnotherProcessHoldsIt() async throws {
        let cluster = try await PostgresCluster.started()
        defer { cluster.remove() }
        try await cluster.stop()
        let fd = try Self.hold(cluster.port)
        let released = Thread {
            Thread.sleep(forTimeInterval: 2)
            close(fd)
        }
        released.start()
        try await cluster.start()
        #expect(try await cluster.psql("SELECT 41 + 1") == ["42"])
    }
}
