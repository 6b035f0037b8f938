import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostHost
@testable import PlayerHostLoop
@testable import PlayerHostModel
@testable import PlayerHostRPC

/// The host's one request-with-timeout (`PendingRequests` behind `RPCConnection.request(…,
/// timeoutMilliseconds:)`) and the places that use it — provided methods and a command's
/// out-of-process targets — on a `ManualScheduler`: no socket, no daemon, no sleep; time moves
/// only when the test says, so each deadline is checked to the millisecond.
@Suite struct RequestTimeoutTests {
    /// A connection with no socket whose deadlines `scheduler` keeps.
    static func connection(_ id: Int, _ scheduler: ManualScheduler, dispatcher: RPCDispatcher = RPCDispatcher()) -> RPCConnection {
        let c = RPCConnection(id: id, dispatcher: dispatcher)
        c.scheduler = scheduler
        return c
    }

    /// The lines `c` wrote since the last call, parsed.
    static func lines(_ c: RPCConnection) -> [JSON] {
        let out = c.pendingOutput
        c.discardOutput()
        return out.split(separator: 0x0A).compactMap { try? JSONParser.parse(Array($0)) }
    }

    static func feed(_ c: RPCConnection, _ text: String) {
        _ = Array((text + "\n").utf8).withUnsafeBytes { c.receive($0) }
    }

    // MARK: - RPCConnection

    @Test func aRequestTimesOutExactlyAtItsDeadlineAndALateReplyIsDropped() {
        let s = ManualScheduler()
        let c = Self.connection(1, s)
        var results: [Result<JSON, RPCError>] = []
        let id = c.request(method: "command.handle", params: ["n": 1], timeoutMilliseconds: 300) { results.append($0) }
        #expect(Self.lines(c).first?["id"] == .int(id), "the request went out")
        s.advance(byMilliseconds: 299)
        #expect(results.isEmpty && c.pendingOutgoingCount == 1)
        s.advance(byMilliseconds: 1)
        guard case .failure(let e)? = results.first else { Issue.record("no timeout at 300 ms: \(results)"); return }
        #expect(e.code == RPCErrorCode.timeout.rawValue && e.message.contains("300 ms"), "\(e)")
        #expect(c.pendingOutgoingCount == 0 && s.armedTimerCount == 0)
        Self.feed(c, #"{"jsonrpc":"2.0","result":{"status":"success"},"id":\#(id)}"#)
        #expect(results.count == 1, "the late reply is dropped, the completion ran once")
        #expect(Self.lines(c).isEmpty, "and nothing is answered to it")
    }

    @Test func aReplyBeforeTheDeadlineDisarmsIt() {
        let s = ManualScheduler()
        let c = Self.connection(1, s)
        var results: [Result<JSON, RPCError>] = []
        let id = c.request(method: "m", params: nil, timeoutMilliseconds: 300) { results.append($0) }
        s.advance(byMilliseconds: 100)
        Self.feed(c, #"{"jsonrpc":"2.0","error":{"code":1040,"message":"no"},"id":\#(id)}"#)
        #expect(results == [.failure(RPCError(code: 1040, message: "no"))], "the client's own error, as it sent it")
        #expect(s.armedTimerCount == 0, "its deadline is gone with it")
        s.advance(byMilliseconds: 1000)
        #expect(results.count == 1)
    }

    @Test func closeFailsEveryRequestInTheOrderSentAndDisarmsTheirDeadlines() {
        let s = ManualScheduler()
        let c = Self.connection(1, s)
        var failed: [String] = []
        for (name, timeout) in [("a", 500 as UInt64?), ("b", nil), ("c", 100)] {
            c.request(method: name, params: nil, timeoutMilliseconds: timeout) { result in
                if case .failure(let e) = result, e.code == RPCErrorCode.shuttingDown.rawValue, e.message == "gone" { failed.append(name) }
            }
        }
        #expect(s.armedTimerCount == 2)
        c.close()
        c.failAllOutgoing(reason: "gone")
        #expect(failed == ["a", "b", "c"])
        #expect(c.pendingOutgoingCount == 0 && s.armedTimerCount == 0)
        s.advance(byMilliseconds: 1000)
        #expect(failed.count == 3, "no timeout after the failure")
        // A request on the closed connection fails on the scheduler's next turn, not in the call.
        var late: Result<JSON, RPCError>?
        c.request(method: "d", params: nil, timeoutMilliseconds: 10) { late = $0 }
        #expect(late == nil)
        s.runPending()
        #expect(late == .failure(RPCError(.shuttingDown, "the connection is closed")))
    }

    // MARK: - Provided methods

    /// A caller's call to a provided method, the provider, and the host's table between them.
    struct ProvidedSetup {
        let scheduler = ManualScheduler()
        let dispatcher = RPCDispatcher()
        let provided: ProvidedMethods
        let provider: RPCConnection
        let caller: RPCConnection

        init() {
            provided = ProvidedMethods(dispatcher: dispatcher, loop: scheduler)
            dispatcher.table.register(provided.method)
            provider = RequestTimeoutTests.connection(5, scheduler, dispatcher: dispatcher)
            caller = RequestTimeoutTests.connection(6, scheduler, dispatcher: dispatcher)
            let provider = self.provider
            provided.connection = { $0 == 5 ? provider : nil }
            RequestTimeoutTests.feed(provider, #"{"jsonrpc":"2.0","method":"plugin.provide","params":{"methods":["x.slow"]},"id":1}"#)
            _ = RequestTimeoutTests.lines(provider)
        }
    }

    @Test func aProvidedCallFailsAtItsDeadlineAndTheLateAnswerIsDropped() throws {
        let p = ProvidedSetup()
        p.provided.timeoutMilliseconds = 1000
        Self.feed(p.caller, #"{"jsonrpc":"2.0","method":"x.slow","params":{"a":1},"id":7}"#)
        let forwarded = try #require(Self.lines(p.provider).first)
        #expect(forwarded["method"] == "x.slow" && forwarded["params"]?["a"] == 1)
        #expect(p.provided.pendingCalls(of: 6) == 1)
        p.scheduler.advance(byMilliseconds: 999)
        #expect(Self.lines(p.caller).isEmpty)
        p.scheduler.advance(byMilliseconds: 1)
        let reply = try #require(Self.lines(p.caller).first)
        #expect(reply["id"] == 7 && reply["error"]?["code"] == .int(Int64(RPCErrorCode.pluginFailure.rawValue)))
        #expect(reply["error"]?["message"]?.stringValue?.contains("did not answer in time") == true, "\(reply)")
        #expect(p.provided.pendingCalls(of: 6) == 0, "the caller's budget is given back")
        let rid = try #require(forwarded["id"]?.intValue)
        Self.feed(p.provider, #"{"jsonrpc":"2.0","result":"late","id":\#(rid)}"#)
        #expect(Self.lines(p.caller).isEmpty, "the late answer is dropped")
        #expect(p.provider.pendingOutgoingCount == 0 && p.scheduler.armedTimerCount == 0)
    }

    @Test func aProvidedCallAnsweredInTimeOrWhoseProviderWentAway() throws {
        let p = ProvidedSetup()
        Self.feed(p.caller, #"{"jsonrpc":"2.0","method":"x.slow","id":1}"#)
        Self.feed(p.caller, #"{"jsonrpc":"2.0","method":"x.slow","id":2}"#)
        let forwarded = Self.lines(p.provider)
        #expect(forwarded.count == 2)
        let first = try #require(forwarded.first?["id"]?.intValue)
        p.scheduler.advance(byMilliseconds: 29_999)
        Self.feed(p.provider, #"{"jsonrpc":"2.0","result":"ok","id":\#(first)}"#)
        #expect(Self.lines(p.caller) == [["jsonrpc": "2.0", "result": "ok", "id": 1]])
        p.provider.failAllOutgoing(reason: "the client disconnected")
        let gone = try #require(Self.lines(p.caller).first)
        #expect(gone["id"] == 2 && gone["error"]?["message"]?.stringValue?.contains("went away") == true, "\(gone)")
        #expect(p.provided.pendingCalls(of: 6) == 0 && p.scheduler.armedTimerCount == 0)
    }

    // MARK: - A command's targets

    /// A service whose session `s` has `like` enabled with targets of clients 8 and 9 (in that
    /// order), each a connection on the manual clock; the service reads the same clock.
    struct CommandSetup {
        let scheduler = ManualScheduler()
        let loop: EventLoop
        let service: NowPlayingService
        let targets: [ClientID: RPCConnection]

        init(timeoutMilliseconds: UInt64) throws {
            var m = NowPlayingModel()
            _ = try m.makeEligible("s")
            _ = try m.addTarget(session: "s", .like, client: 8, now: .zero)
            _ = try m.addTarget(session: "s", .like, client: 9, now: .zero)
            _ = try m.enableCommand(session: "s", .like, enabled: true, now: .zero)
            loop = try EventLoop()
            service = NowPlayingService(scheduler: loop, logger: .init(label: "test"), model: m)
            let scheduler = self.scheduler
            service.clock = { MonotonicInstant(nanoseconds: scheduler.nowNanoseconds) }
            service.commandTimeoutMilliseconds = timeoutMilliseconds
            let targets: [ClientID: RPCConnection] = [8: RequestTimeoutTests.connection(8, scheduler), 9: RequestTimeoutTests.connection(9, scheduler)]
            self.targets = targets
            service.connection = { targets[$0] }
        }

        /// Sends `like`; its result once the command is done.
        func send(_ done: @escaping (Result<JSON, RPCError>) -> Void) throws {
            let promise = RPCPromise()
            promise.onComplete(done)
            let progress = try service.perform { m, t in try m.sendCommand(.like, session: "s", now: t) }
            service.drive(progress, promise: promise)
        }

        /// The id of the `command.handle` request client `client` was sent.
        func asked(_ client: ClientID) -> Int64? {
            targets[client].flatMap { RequestTimeoutTests.lines($0).first?["id"]?.intValue }.map(Int64.init)
        }

        func close() throws {
            service.close()
            try loop.close()
        }
    }

    @Test func oneDeadlineBoundsTheWholeCommandWhoeverAnswers() throws {
        let cmd = try CommandSetup(timeoutMilliseconds: 2000)
        var result: Result<JSON, RPCError>?
        try cmd.send { result = $0 }
        let first = try #require(cmd.asked(8)), second = try #require(cmd.asked(9))
        #expect(first > 0 && second > 0, "both targets are asked at once")
        // The second answers; the first, ahead of it in order, does not.
        cmd.scheduler.advance(byMilliseconds: 1500)
        Self.feed(try #require(cmd.targets[9]), #"{"jsonrpc":"2.0","result":{"status":"success"},"id":\#(second)}"#)
        cmd.scheduler.advance(byMilliseconds: 499)
        #expect(result == nil, "still within the command's 2000 ms")
        cmd.scheduler.advance(byMilliseconds: 1)
        guard case .success(let outcome)? = result else { Issue.record("not done at 2000 ms: \(String(describing: result))"); return }
        #expect(outcome["status"] == "commandFailed", "the silent first target is commandFailed, first in order: \(outcome)")
        Self.feed(try #require(cmd.targets[8]), #"{"jsonrpc":"2.0","result":{"status":"success"},"id":\#(first)}"#)
        #expect(cmd.targets.values.allSatisfy { $0.pendingOutgoingCount == 0 } && cmd.scheduler.armedTimerCount == 0,
                "the late answer is dropped and nothing stays armed")
        try cmd.close()
    }

    @Test func theDeadlineIsTheCommandsNotEachTargetsInTurn() throws {
        let cmd = try CommandSetup(timeoutMilliseconds: 2000)
        var result: Result<JSON, RPCError>?
        try cmd.send { result = $0 }
        let first = try #require(cmd.asked(8))
        _ = try #require(cmd.asked(9))
        // The first answers late in the window: the second does not get 2000 ms more.
        cmd.scheduler.advance(byMilliseconds: 1900)
        Self.feed(try #require(cmd.targets[8]), #"{"jsonrpc":"2.0","result":{"status":"success"},"id":\#(first)}"#)
        #expect(result == nil)
        cmd.scheduler.advance(byMilliseconds: 100)
        guard case .success(let outcome)? = result else { Issue.record("not done at 2000 ms: \(String(describing: result))"); return }
        #expect(outcome["status"] == "commandFailed", "\(outcome)")
        try cmd.close()
    }

    @Test func everyTargetAnsweringEndsTheCommandAndItsDeadlines() throws {
        let cmd = try CommandSetup(timeoutMilliseconds: 2000)
        var result: Result<JSON, RPCError>?
        try cmd.send { result = $0 }
        let first = try #require(cmd.asked(8)), second = try #require(cmd.asked(9))
        Self.feed(try #require(cmd.targets[9]), #"{"jsonrpc":"2.0","result":{"status":"success"},"id":\#(second)}"#)
        #expect(result == nil, "answers go to the model in target order")
        Self.feed(try #require(cmd.targets[8]), #"{"jsonrpc":"2.0","result":{"status":"success"},"id":\#(first)}"#)
        guard case .success(let outcome)? = result else { Issue.record("not done: \(String(describing: result))"); return }
        #expect(outcome["status"] == "success")
        #expect(cmd.scheduler.armedTimerCount == 0)
        try cmd.close()
    }
}
