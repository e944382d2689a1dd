/// How often a session (or all of them) zooms in and out: decayed counts of steps and of the
/// steps that zoomed one way without jumping.
struct ZoomHabit {
    var steps = 0.0
    var zoomsIn = 0.0
    var zoomsOut = 0.0

    /// The share of steps that zoom one way for that way's next zoom level to be predicted.
    static var share: Double { 0.1 }
    /// Steps after which a session's counts are halved.
    static var memory: Double { 64 }
    /// The steps a new session's prior weighs.
    static var priorSteps: Double { 8 }
    /// Requests over which the habit of all sessions follows theirs (an exponential average).
    static var populationRequests: Double { 1024 }

    mutating func countStep() {
        steps += 1
        if steps > Self.memory {
            steps /= 2
            zoomsIn /= 2
            zoomsOut /= 2
        }
    }

    mutating func countZoom(in: Bool) {
        if `in` { zoomsIn += 1 } else { zoomsOut += 1 }
    }

    /// Whether `count` zooms are a large enough share of the steps.
    func often(_ count: Double) -> Bool { steps > 0 && count >= Self.share * steps }

    /// A new session's counts: `priorSteps` steps zooming as these counts' shares.
    var prior: ZoomHabit {
        guard steps > 0 else { return ZoomHabit() }
        let scale = Self.priorSteps / steps
        return ZoomHabit(steps: Self.priorSteps, zoomsIn: zoomsIn * scale, zoomsOut: zoomsOut * scale)
    }

    /// Moves the shares of all sessions (these counts, over `priorSteps` steps) towards one
    /// session's, once it has a prior's worth of steps.
    mutating func learn(from session: ZoomHabit) {
        guard session.steps >= Self.priorSteps else { return }
        let rate = 1 / Self.populationRequests
        steps = Self.priorSteps
        zoomsIn += (session.zoomsIn / session.steps * Self.priorSteps - zoomsIn) * rate
        zoomsOut += (session.zoomsOut / session.steps * Self.priorSteps - zoomsOut) * rate
    }
}
