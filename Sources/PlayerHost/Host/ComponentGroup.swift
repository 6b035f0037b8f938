import PlayerHostBase
import PlayerHostConfig

/// The daemon's parts started and stopped in order, as swift-service-lifecycle's `ServiceGroup`
/// runs its services — but synchronously, on the one loop thread, with no tasks.
///
/// - `start` starts the components in list order. A component counts as started from the
///   moment its `start` is called (a start may run the loop, and a shutdown asked for meanwhile
///   must stop what it has half set up). If a `start` throws, that component is taken out again
///   (it undoes its own half-start), the ones started before it are stopped in reverse order,
///   and the error is rethrown naming it.
/// - A shutdown asked for while the group is starting (a component's start ran the loop and a
///   signal came) stops what is started, the one starting included, and nothing after it starts.
/// - `shutdown` runs exactly once (later calls, and calls from inside the shutdown, do
///   nothing), in two passes over the started components, both in reverse start order:
///   `willStop` — the last words, while every component still runs — then `stop`. ServiceGroup
///   has the same split (a graceful shutdown first, then cancellation). A component asks for
///   the group's shutdown itself through the group it is given at start (a signal, the lost
///   lock file).
/// - `apply` and `stats` go over the started components in start order (stopped ones too: a
///   reload is refused once the daemon shuts down, and `stats` then shows the last figures).
final class ComponentGroup {
    /// Where the group is in its one life: idle → starting → running → stopping → stopped.
    enum Phase: Equatable, Sendable {
        case idle, starting, running, stopping, stopped
    }

    /// A component's start failed: which one, and why.
    struct StartError: Error, CustomStringConvertible {
        /// The component's `name`.
        var component: String
        var error: HostError
        var description: String { "starting \(component): \(error)" }
    }

    /// Every component, in start order.
    let components: [HostComponent]
    private(set) var phase = Phase.idle
    /// The started components, in start order (the one starting included). Kept once they are
    /// stopped: `stats` then shows their last figures.
    private(set) var started: [HostComponent] = []
    /// Runs once, first thing of a shutdown asked for (not of a failed start's clean-up), with
    /// its reason: the daemon logs it and tells systemd it is stopping.
    var willShutdown: ((String) -> Void)?
    /// Why the shutdown was asked for (nil: it was not; a failed start's clean-up is not one).
    private(set) var shutdownReason: String?

    init(_ components: [HostComponent]) {
        self.components = components
    }

    /// A shutdown was asked for (or a start failed): nothing starts any more.
    var isShuttingDown: Bool { phase == .stopping || phase == .stopped }

    /// Starts every component in order (see the type). Returns normally when a shutdown asked
    /// for during a start cut it short; does nothing unless the group is idle.
    func start() throws(StartError) {
        guard phase == .idle else { return }
        phase = .starting
        for component in components {
            // A shutdown asked for while the previous component started: start nothing more.
            guard phase == .starting else { return }
            started.append(component)
            do {
                try component.start(self)
            } catch {
                // Stopped already if a shutdown came during its start; else it undid itself.
                if phase == .starting {
                    started.removeLast()
                    stopStarted()
                }
                throw StartError(component: component.name, error: error)
            }
        }
        if phase == .starting { phase = .running }
    }

    /// Stops the started components: `willStop` on each, then `stop` on each, both in reverse
    /// start order. Exactly once; before `start`, it only makes sure nothing will start.
    func shutdown(reason: String) {
        guard !isShuttingDown else { return }
        phase = .stopping
        shutdownReason = reason
        willShutdown?(reason)
        stopStarted()
    }

    private func stopStarted() {
        phase = .stopping
        let stopping = started.reversed()
        for component in stopping { component.willStop() }
        for component in stopping { component.stop() }
        phase = .stopped
    }

    /// A reload's keys for the started components, in start order (each took the same keys
    /// when it started).
    func apply(_ new: HostConfig, old: HostConfig, changes: inout HostCore.Changes) {
        for component in started { component.apply(new, old: old, changes: &changes) }
    }

    /// The started components' `host.stats` entries, merged in start order.
    var stats: [String: JSON] {
        var o: [String: JSON] = [:]
        for component in started {
            for (k, v) in component.stats { o[k] = v }
        }
        return o
    }
}
