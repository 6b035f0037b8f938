import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostConfig
@testable import PlayerHostHost

/// Issue 24: the daemon's parts started and stopped in order (`ComponentGroup`, after
/// swift-service-lifecycle's ServiceGroup), checked with fake components that write every call
/// into one log.
@Suite struct ComponentGroupTests {
    /// Every call the fakes get, in the order they got it.
    final class Log {
        var lines: [String] = []
    }

    /// A fake component: records its calls; can fail its start or ask for the shutdown.
    final class Fake: HostComponent {
        let name: String
        let log: Log
        var failsToStart = false
        /// Asks the group for its shutdown from inside its start (a SIGTERM while plugins set up).
        var shutsDownInStart = false
        /// Asks again from inside its stop (a handle's close callback): must change nothing.
        var shutsDownInStop = false
        private(set) weak var group: ComponentGroup?

        init(_ name: String, _ log: Log) {
            self.name = name
            self.log = log
        }

        func start(_ group: ComponentGroup) throws(HostError) {
            self.group = group
            log.lines.append("start \(name)")
            if failsToStart { throw .config("\(name) cannot start") }
            if shutsDownInStart { group.shutdown(reason: "asked by \(name)") }
        }

        func willStop() { log.lines.append("willStop \(name)") }

        func stop() {
            log.lines.append("stop \(name)")
            if shutsDownInStop { group?.shutdown(reason: "again") }
        }

        func apply(_ new: HostConfig, old: HostConfig, changes: inout HostCore.Changes) {
            changes.changed.append(name)
        }

        var stats: [String: JSON] { [name: true, "last": .string(name)] }
    }

    static func fakes(_ names: [String], _ log: Log) -> [Fake] { names.map { Fake($0, log) } }

    static let lists: [[String]] = [["a"], ["a", "b"], ["server", "artwork", "signals", "state", "mpris", "plugins"]]

    @Test(arguments: lists)
    func startsInOrderAndStopsInReverseWillStopFirst(names: [String]) throws {
        let log = Log()
        let group = ComponentGroup(Self.fakes(names, log))
        try group.start()
        #expect(group.phase == .running)
        #expect(log.lines == names.map { "start \($0)" })
        log.lines = []
        group.shutdown(reason: "test")
        #expect(group.phase == .stopped)
        #expect(log.lines == names.reversed().map { "willStop \($0)" } + names.reversed().map { "stop \($0)" })
    }

    /// A start that fails at each place in turn: the ones before it stop in reverse, the ones
    /// after it never start, it is not stopped itself (it undid its own start), and the error
    /// names it.
    @Test(arguments: 0..<4)
    func aFailedStartStopsTheStartedOnesInReverseAndNamesTheComponent(failing: Int) {
        let log = Log()
        let names = ["a", "b", "c", "d"]
        let fakes = Self.fakes(names, log)
        fakes[failing].failsToStart = true
        let group = ComponentGroup(fakes)
        var told: [String] = []
        group.willShutdown = { told.append($0) }
        do {
            try group.start()
            Issue.record("the start did not throw")
        } catch {
            #expect(error.component == names[failing])
            #expect(error.description == "starting \(names[failing]): configuration: \(names[failing]) cannot start")
        }
        let before = Array(names[..<failing])
        #expect(log.lines == names[...failing].map { "start \($0)" }
            + before.reversed().map { "willStop \($0)" } + before.reversed().map { "stop \($0)" })
        #expect(group.phase == .stopped && group.isShuttingDown)
        #expect(told.isEmpty, "a failed start is no shutdown asked for: the daemon logs none")
        // Nothing more happens: neither a shutdown nor another start.
        log.lines = []
        group.shutdown(reason: "later")
        try? group.start()
        #expect(log.lines.isEmpty)
    }

    /// Exactly once: a second shutdown, and one asked for from inside a stop, do nothing.
    @Test func shutdownIsIdempotent() throws {
        let log = Log()
        let fakes = Self.fakes(["a", "b", "c"], log)
        fakes[1].shutsDownInStop = true
        let group = ComponentGroup(fakes)
        var told: [String] = []
        group.willShutdown = { told.append($0) }
        try group.start()
        log.lines = []
        group.shutdown(reason: "first")
        group.shutdown(reason: "second")
        #expect(log.lines == ["willStop c", "willStop b", "willStop a", "stop c", "stop b", "stop a"])
        #expect(told == ["first"])
        #expect(group.shutdownReason == "first")
    }

    /// A component asks for the shutdown from inside its start (the daemon's plugins run the
    /// loop, and a SIGTERM comes): it is stopped with the ones before it, nothing after it
    /// starts, and the start returns without an error.
    @Test func aShutdownAskedForDuringAStartStopsItAndStartsNothingMore() throws {
        let log = Log()
        let fakes = Self.fakes(["a", "b", "c"], log)
        fakes[1].shutsDownInStart = true
        let group = ComponentGroup(fakes)
        var told: [String] = []
        group.willShutdown = { told.append($0) }
        try group.start()
        #expect(log.lines == ["start a", "start b", "willStop b", "willStop a", "stop b", "stop a"])
        #expect(told == ["asked by b"])
        #expect(group.phase == .stopped)
    }

    /// A running component asks for the shutdown (the lost lock file): all stop, in reverse.
    @Test func aRunningComponentCanAskForTheShutdown() throws {
        let log = Log()
        let fakes = Self.fakes(["a", "b", "c"], log)
        let group = ComponentGroup(fakes)
        try group.start()
        log.lines = []
        fakes[1].group?.shutdown(reason: "lock file removed")
        #expect(group.shutdownReason == "lock file removed")
        #expect(log.lines == ["willStop c", "willStop b", "willStop a", "stop c", "stop b", "stop a"])
    }

    /// Before `start`, a shutdown stops nothing and nothing starts afterwards.
    @Test func aShutdownBeforeTheStartLeavesNothingToStart() throws {
        let log = Log()
        let group = ComponentGroup(Self.fakes(["a", "b"], log))
        group.shutdown(reason: "early")
        try group.start()
        #expect(log.lines.isEmpty)
        #expect(group.phase == .stopped)
    }

    /// `apply` and `stats` go over the started components, in start order (a later one's
    /// entry wins a shared key), and over none that did not start.
    @Test(arguments: lists)
    func applyAndStatsGoOverTheStartedOnesInOrder(names: [String]) throws {
        let log = Log()
        let group = ComponentGroup(Self.fakes(names, log))
        var before = HostCore.Changes()
        group.apply(HostConfig(), old: HostConfig(), changes: &before)
        #expect(before.changed.isEmpty && group.stats.isEmpty, "nothing started yet")
        try group.start()
        var changes = HostCore.Changes()
        group.apply(HostConfig(), old: HostConfig(), changes: &changes)
        #expect(changes.changed == names)
        let stats = group.stats
        #expect(stats["last"] == .string(names[names.count - 1]))
        #expect(Set(stats.keys) == Set(names + ["last"]))
    }

    /// After a failed start only the ones that started (and were stopped) are applied to.
    @Test func applyReachesOnlyTheOnesThatStarted() {
        let log = Log()
        let fakes = Self.fakes(["a", "b", "c"], log)
        fakes[2].failsToStart = true
        let group = ComponentGroup(fakes)
        #expect(throws: ComponentGroup.StartError.self) { try group.start() }
        var changes = HostCore.Changes()
        group.apply(HostConfig(), old: HostConfig(), changes: &changes)
        #expect(changes.changed == ["a", "b"])
    }

    /// The daemon lists its parts once, in the order the docs (and the state's split) rely on.
    @Test func theDaemonListsItsPartsInStartOrder() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        var options = HostOptions(socketPath: dir + "/c.sock", socketIsDefault: false)
        options.stateDirectory = dir + "/state"
        options.environment = ["HOME": dir, "XDG_CONFIG_HOME": dir + "/config"]
        let host = try HostDaemon(options: options, logger: .init(label: "test"))
        defer { host.finish() }
        #expect(host.components.map(\.name) == ["control server", "artwork", "signals", "state", "mpris", "plugins"])
        #expect(host.group.phase == .idle, "listing them starts nothing")
    }
}
