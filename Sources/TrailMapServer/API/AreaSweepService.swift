import Areas
import ServiceLifecycle

/// Deletes the bundles of area quotes nobody bought, every `interval`, until shutdown (quotes
/// also sweep when a new one is asked for).
struct AreaSweepService: Service {
    let areas: AreaQuoting
    var interval: Duration = .seconds(60)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                await areas.sweep()
            }
        }
    }
}
