/// Whether a session (or all of them) asks for its viewport again at each step: decayed counts
/// of its requests that fell in the viewport of its step before (asked for again) and of those
/// outside it.
///
/// A new session starts from what sessions did lately (`prior`): among viewers without a cache
/// of their own, its first viewport is expected again at its second step, as theirs were, instead
/// of being held as tiles asked for once until its own requests have shown it.
struct RepeatHabit {
    var repeated = 0.0
    var fresh = 0.0
    /// Requests counted by the session itself (not inherited with its prior), up to `evidence`.
    var own = 0.0

    /// Requests of evidence before a session is judged (a new session's prior weighs as many).
    static var evidence: Double { 8 }
    /// Requests after which a session's counts are halved.
    static var memory: Double { 64 }
    /// Requests over which the habit of all sessions follows theirs (an exponential average).
    static var populationRequests: Double { 1024 }

    /// Whether the requests counted show a viewer that asks for its viewport again: enough of
    /// them, and more asked for again than not.
    var repeats: Bool { repeated + fresh >= Self.evidence - 1e-9 && repeated > fresh }

    /// Counts one request: in the step before's viewport (`again`) or outside it.
    mutating func count(again: Bool) {
        if again { repeated += 1 } else { fresh += 1 }
        own = min(Self.evidence, own + 1)
        if repeated + fresh > Self.memory {
            repeated /= 2
            fresh /= 2
        }
    }

    /// A new session's counts: `evidence` requests at these counts' shares (none before any
    /// session has shown its habit).
    var prior: RepeatHabit {
        let n = repeated + fresh
        guard n > 0 else { return RepeatHabit() }
        let r = repeated / n * Self.evidence
        return RepeatHabit(repeated: r, fresh: Self.evidence - r)
    }

    /// Moves the shares of all sessions (these counts, over `evidence` requests) towards one
    /// session's, once `evidence` requests of its own have been counted (a prior it inherited
    /// is not evidence).
    mutating func learn(from session: RepeatHabit) {
        let n = session.repeated + session.fresh
        guard session.own >= Self.evidence, n > 0 else { return }
        if repeated + fresh == 0 {
            self = session.prior
            return
        }
        let rate = 1 / Self.populationRequests
        let share = repeated / (repeated + fresh)
        let next = share + (session.repeated / n - share) * rate
        repeated = next * Self.evidence
        fresh = (1 - next) * Self.evidence
    }
}
