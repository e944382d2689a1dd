import Foundation
import Synchronization

/// Why the test run's Slurm cluster could not start.
public struct SlurmClusterError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// One real one-node Slurm cluster per test run (scripts/slurm/local-cluster.sh: Debian's munged,
/// slurmctld and slurmd in a temporary folder on free ports), stopped when the test process exits.
public enum SlurmCluster {
    /// This checkout's root folder.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Whether the Slurm and MUNGE daemons and clients are installed (scripts/install-deps.sh).
    public static let installed: Bool = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "scancel", "sinfo"].allSatisfy {
        tool in
        ["/usr/sbin", "/usr/bin", "/sbin", "/bin"].contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
    }

    /// The environment the Slurm clients need (`SLURM_CONF`), or why the cluster could not start.
    /// The first use starts the cluster (seconds: call it off the shared concurrency pool).
    public static let environment: Result<[String: String], SlurmClusterError> = start()

    private static let folder = Mutex<String?>(nil)

    private static func start() -> Result<[String: String], SlurmClusterError> {
        let dir = "/tmp/tm-slurm-\(getpid())"
        let script = root + "/scripts/slurm/local-cluster.sh"
        let (status, output) = PostgresTestServer.run(script, ["start", dir])
        guard status == 0 else {
            _ = PostgresTestServer.run(script, ["stop", dir])
            return .failure(SlurmClusterError(message: "scripts/slurm/local-cluster.sh start \(dir) failed: \(output)"))
        }
        folder.withLock { $0 = dir }
        atexit {
            guard let dir = SlurmCluster.folder.withLock({ $0 }) else { return }
            _ = PostgresTestServer.run(SlurmCluster.root + "/scripts/slurm/local-cluster.sh", ["stop", dir])
            try? FileManager.default.removeItem(atPath: dir)
        }
        return .success(["SLURM_CONF": dir + "/slurm.conf"])
    }
}
