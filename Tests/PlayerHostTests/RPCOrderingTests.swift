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

    @Test func failAllOutgoingOnDisconnect() {
        let h = RPCHarness()
        var failures = 0
        h.connection.request(method: "x", params: nil) { if case .failure = $0 { failures += 1 } }
        h.connection.request(method: "y", params: nil) { if case .failure = $0 { failures += 1 } }
        h.connection.failAllOutgoing(RPCError(.shuttingDown, "gone"))
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
