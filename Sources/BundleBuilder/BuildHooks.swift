/// What the package's tests set in a build, apart from `BuildOptions` (what a user sets): set on
/// `BundleBuilder.hooks` by the tests, or by the debug CLI that the resume tests run.
package struct BuildHooks: Sendable {
    /// The process kills itself with SIGKILL once this many units are recorded in this run (0:
    /// once every unit is, before the bundle is finished), for the resume tests. Nil: never.
    package var killAfterUnits: Int?

    /// A build that resumes nothing holds still once after this many units are recorded in its
    /// partial file: it writes `marker` and waits until the file is gone or `seconds` pass, so a
    /// test sees it mid-run and stops it there (the Slurm cancel test). Nil: never.
    package var pauseAfterUnits: Pause?

    /// Where and how long a build holds still (`pauseAfterUnits`).
    package struct Pause: Sendable {
        package var units: Int
        package var seconds: Double
        /// The file written while the build holds; removing it lets the build go on.
        package var marker: String
        package init(units: Int, seconds: Double, marker: String) {
            self.units = units
            self.seconds = seconds
            self.marker = marker
        }
    }

    package init(killAfterUnits: Int? = nil, pauseAfterUnits: Pause? = nil) {
        self.killAfterUnits = killAfterUnits
        self.pauseAfterUnits = pauseAfterUnits
    }
}
