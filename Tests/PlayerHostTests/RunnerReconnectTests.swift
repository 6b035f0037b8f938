import Foundation
import Testing
@testable import PlayerHost

/// An out-of-process plugin keeps working across a daemon restart: PluginRunner reconnects and
/// attaches the plugin again, and its session comes back.
@Suite(.serialized) struct RunnerReconnectTests {
    final class SessionMaker: SessionPlugin {
        let name = "runner-test"
        func attach(_ context: PluginContext) {
            context.send("session.create", ["id": "runner-test", "kind": "main"])
        }
    }

    /// State shared with the runner's thread.
    final class Shared: @unchecked Sendable {
        private let lock = NSLock()
        private var _stop: PluginRunner.StopHandle?
        let finished = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        var stop: PluginRunner.StopHandle? {
            get { lock.withLock { _stop } }
            set { lock.withLock { _stop = newValue } }
        }
    }

    /// Waits (on events, with a deadline) until `session` exists.
    func waitForSession(_ d: DaemonHarness, _ session: String) throws -> Bool {
        let c = try d.client()
        try c.call("events.subscribe", ["topics": ["sessions"]])
        _ = try c.nextNotification(timeout: 5)  // the current list, sent at once
        if try c.call("session.list").arrayValue?.contains(where: { $0["id"] == .string(session) }) == true { return true }
        while true {
            let n = try c.nextNotification(timeout: 20)
            if n["params"]?["type"] == "sessionCreated" && n["params"]?["session"] == .string(session) { return true }
        }
    }

    @Test func reattachesAfterTheDaemonRestarts() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        let shared = Shared()
        let path = d.socketPath
        let thread = Thread {
            let runner = PluginRunner(plugin: SessionMaker(), socketPath: path)
            shared.stop = runner.stopHandle
            shared.started.signal()
            runner.run()
            shared.finished.signal()
        }
        thread.start()
        #expect(shared.started.wait(timeout: .now() + 10) == .success)
        #expect(try waitForSession(d, "runner-test"))
        // The daemon goes away and comes back on the same socket.
        #expect(d.stop()?.status == 0)
        #expect(try d.start())
        #expect(try waitForSession(d, "runner-test"), "the runner reconnected and the plugin re-created its session")
        let owner = try d.client().call("session.get", ["session": "runner-test"])["app"]
        #expect(owner != "host", "the plugin said host.hello again: the session is its app's")
        shared.stop?.stop()
        #expect(shared.finished.wait(timeout: .now() + 10) == .success, "stop() from another thread ends run()")
        #expect(d.stop()?.status == 0)
    }
}
