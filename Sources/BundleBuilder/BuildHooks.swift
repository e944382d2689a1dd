/// What the package's tests set in a build, apart from `BuildOptions` (what a user sets): set on
/// `BundleBuilder.hooks` by the tests, or by the debug CLI that the resume tests run.
package struct BuildHooks: Sendable {
    /// The process kills itself with SIGKILL once this many units are recorded in this run (0:
    /// once every unit is, before the bundle is finished), for the resume tests. Nil: never.
    package var killAfterUnits: Int?

    package init(killAfterUnits: Int? = nil) {
        self.killAfterUnits = killAfterUnits
    }
}
