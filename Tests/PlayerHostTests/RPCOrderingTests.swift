import Testing
@testable import PlayerHost

/// Replies keep request order even when a handler answers later; host→client requests route back.
@Suite struct RPCOrderingTests {
    @Test func deferredReplyHoldsLaterOnes() {
        var promises: [RPCPromise] = []
        let h = RPCHarness(methods: [
            RPCMethod("slow", summary: "answers later") { _ in
                let p = RPCPromise()
                promises.append(p)
                return .deferred(p)
            },
            .sync("fast", summary: "answers now") { _ in "fast" },
        ])
        var flushes = 0
        h.connection.onOutput = { flushes += 1 }
        h.feed(#"{"jsonrpc":"2.0","method":"slow","id":1}"# + "\n" + #"{"jsonrpc":"2.0","method":"fast","id":2}"# + "\n")
        #expect(h.takeReplies().isEmpty, "the fast reply waits for the slow one before it")
        promises[0].complete(.success("slow"))
        #expect(flushes == 1, "a late completion asks the transport to flush")
        #expect(h.takeReplies() == [reply("slow", id: 1), reply("fast", id: 2)])
    }

    @Test func deferredInsideBatch() {
        var promises: [RPCPromise] = []
        let h = RPCHarness(methods: [
            RPCMethod("slow", summary: "answers later") { _ in
                let p = RPCPromise()
                promises.append(p)
                return .deferred(p)
            },
            .sync("fast", summary: "answers now") { _ in "fast" },
        ])
        h.feed(#"[{"jsonrpc":"2.0","method":"slow","id":1},{"jsonrpc":"2.0","method":"fast","id":2}]"# + "\n")
        #expect(h.takeReplies().isEmpty)
        promises[0].complete(.failure(RPCError(.timeout, "too slow")))
        let r = h.takeReplies()
        #expect(r.count == 1)
        #expect(errorCode(r[0].arrayValue?[0]) == RPCErrorCode.timeout.rawValue)
        #expect(r[0].arrayValue?[1] == reply("fast", id: 2))
    }

    @Test func hostRequestsAndClientResponses() throws {
        let h = RPCHarness()
        var got: [Result<JSON, RPCError>] = []
        let id1 = h.connection.request(method: "command.handle", params: ["command": "play"]) { got.append($0) }
        let id2 = h.connection.request(method: "command.handle", params: ["command": "pause"]) { got.append($0) }
        let sent = h.takeReplies()
        #expect(sent.count == 2)
        #expect(sent[0]["method"] == "command.handle" && sent[0]["id"] == .int(id1))
        h.feed(#"{"jsonrpc":"2.0","result":{"status":"success"},"id":\#(id1)}"# + "\n")
        h.feed(#"{"jsonrpc":"2.0","error":{"code":5,"message":"nope"},"id":\#(id2)}"# + "\n")
        #expect(h.connection.output.isEmpty, "responses are never answered")
        #expect(got.count == 2)
        #expect(try got[0].get()["status"] == "success")
        if case .failure(let e) = got[1] { #expect(e.code == 5 && e.message == "nope") } else { Issue.record("expected failure") }
        // A late or unknown response is ignored.
        h.feed(#"{"jsonrpc":"2.0","result":1,"id":999}"# + "\n")
        #expect(h.connection.output.isEmpty)
    }

    /// The plugin side (`repliesInRequestOrder` off): each reply goes out when it is ready, so a
    /// slow request holds no later one; each still carries its own id.
    @Test func withoutRequestOrderEachReplyGoesOutWhenReady() {
        var promises: [RPCPromise] = []
        let h = RPCHarness(methods: [
            RPCMethod("slow", summary: "answers later") { _ in
                let p = RPCPromise()
                promises.append(p)
                return .deferred(p)
            },
            .sync("fast", summary: "answers now") { _ in "fast" },
        ])
        h.connection.repliesInRequestOrder = false
        var flushes = 0
        h.connection.onOutput = { flushes += 1 }
        h.feed(#"{"jsonrpc":"2.0","method":"slow","id":1}"# + "\n" + #"{"jsonrpc":"2.0","method":"slow","id":2}"# + "\n"
            + #"{"jsonrpc":"2.0","method":"fast","id":3}"# + "\n")
        #expect(h.takeReplies() == [reply("fast", id: 3)], "the fast reply does not wait for the slow ones")
        #expect(h.connection.heldReplyBytes == 0)
        promises[1].complete(.success("second"))
        #expect(flushes == 1, "a late completion asks the transport to flush")
        #expect(h.takeReplies() == [reply("second", id: 2)], "the second slow one does not wait for the first")
        promises[0].complete(.failure(RPCError(.timeout, "too slow")))
        let last = h.takeReplies()
        #expect(last.count == 1 && last.first?["id"] == 1 && errorCode(last.first) == RPCErrorCode.timeout.rawValue)
        promises[0].complete(.success("again"))
        #expect(h.takeReplies().isEmpty, "a promise answers once")
    }

    /// Without request order a batch still answers as one array, once all of it is known; a
    /// request after it does not wait for it.
    @Test func withoutRequestOrderABatchIsHeldOnlyByItsOwnMembers() {
        var promises: [RPCPromise] = []
        let h = RPCHarness(methods: [
            RPCMethod("slow", summary: "answers later") { _ in
                let p = RPCPromise()
                promises.append(p)
                return .deferred(p)
            },
            .sync("fast", summary: "answers now") { _ in "fast" },
        ])
        h.connection.repliesInRequestOrder = false
        h.feed(#"[{"jsonrpc":"2.0","method":"slow","id":1},{"jsonrpc":"2.0","method":"fast","id":2}]"# + "\n"
            + #"{"jsonrpc":"2.0","method":"fast","id":3}"# + "\n")
        #expect(h.takeReplies() == [reply("fast", id: 3)])
        #expect(h.connection.heldReplyBytes > 0, "the batch's ready half is held, counted toward the output limit")
        promises[0].complete(.success("slow"))
        #expect(h.takeReplies() == [[reply("slow", id: 1), reply("fast", id: 2)]])
        #expect(h.connection.heldReplyBytes == 0)
    }

    /// The host's end pairs a client's responses with its requests by id, in whatever order
    /// they come back.
    @Test func responsesInAnyOrderReachTheirRequests() throws {
        let h = RPCHarness()
        var got: [Int64: JSON] = [:]
        let ids = (0..<3).map { i in
            h.connection.request(method: "command.handle", params: ["n": .int(Int64(i))]) { r in
                if case .success(let v) = r { got[Int64(i)] = v }
            }
        }
        _ = h.takeReplies()
        for i in [2, 0, 1] {
            h.feed(#"{"jsonrpc":"2.0","result":{"n":\#(i)},"id":\#(ids[i])}"# + "\n")
            #expect(got[Int64(i)]?["n"] == .int(Int64(i)))
        }
        #expect(got.count == 3 && h.connection.pendingOutgoingCount == 0)
    }

    @Test func failAllOutgoingOnDisconnect() {
        let h = RPCHarness()
        var failures = 0
        h.connection.request(method: "x", params: nil) { if case .failure = $0 { failures += 1 } }
        h.connection.request(method: "y", params: nil) { if case .failure = $0 { failures += 1 } }
        h.connection.failAllOutgoing(reason: "gone")
        #expect(failures == 2)
        #expect(h.connection.pendingOutgoingCount == 0)
    }

    @Test func discoverListsEveryMethodFromTheTable() {
        let h = RPCHarness(methods: SpecExampleMethods.all)
        let doc = OpenRPCDocument.make(table: h.dispatcher.table, title: "t", version: "1")
        let names = doc["methods"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(names == h.dispatcher.table.all.map(\.name))
        let subtract = doc["methods"]?.arrayValue?.first { $0["name"] == "subtract" }
        #expect(subtract?["params"]?.arrayValue?.first?["required"] == true)
    }
}
