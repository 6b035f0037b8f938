import Testing
@testable import PlayerHost

/// Every example of the JSON-RPC 2.0 specification, §7, against our codec and dispatcher.
@Suite struct RPCSpecExampleTests {
    let h = RPCHarness(methods: SpecExampleMethods.all)

    @Test func positionalParameters() {
        #expect(h.roundTrip(#"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#) == reply(19.0, id: 1))
        #expect(h.roundTrip(#"{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}"#) == reply(-19.0, id: 2))
    }

    @Test func namedParameters() {
        #expect(h.roundTrip(#"{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}"#) == reply(19.0, id: 3))
        #expect(h.roundTrip(#"{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}"#) == reply(19.0, id: 4))
    }

    @Test func notificationsGetNoReply() {
        #expect(h.roundTrip(#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#) == nil)
        #expect(h.roundTrip(#"{"jsonrpc": "2.0", "method": "foobar"}"#) == nil)
        // The notification did reach its handler.
        #expect(h.dispatcher.requestsServed == 1)
    }

    @Test func nonExistentMethod() {
        let r = h.roundTrip(#"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#)
        #expect(errorCode(r) == -32601)
        #expect(r?["id"] == "1")
    }

    @Test func invalidJSON() {
        let r = h.roundTrip(#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#)
        #expect(errorCode(r) == -32700)
        #expect(r?["id"] == .null)
    }

    @Test func invalidRequestObject() {
        let r = h.roundTrip(#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#)
        #expect(errorCode(r) == -32600)
        #expect(r?["id"] == .null)
    }

    @Test func batchInvalidJSON() {
        let r = h.roundTrip(#"[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method""#)
        #expect(errorCode(r) == -32700)
        #expect(r?["id"] == .null)
    }

    @Test func emptyArray() {
        let r = h.roundTrip("[]")
        #expect(errorCode(r) == -32600)
        #expect(r?.arrayValue == nil, "an empty batch gets one error object, not an array")
    }

    @Test func invalidBatchOfOne() {
        let r = h.roundTrip("[1]")
        #expect(r?.arrayValue?.count == 1)
        #expect(errorCode(r?.arrayValue?.first) == -32600)
    }

    @Test func invalidBatch() {
        let r = h.roundTrip("[1,2,3]")
        let items = r?.arrayValue ?? []
        #expect(items.count == 3)
        #expect(items.allSatisfy { errorCode($0) == -32600 && $0["id"] == .null })
    }

    @Test func mixedBatch() {
        let r = h.roundTrip("""
            [{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},\
            {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},\
            {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},\
            {"foo": "boo"},\
            {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},\
            {"jsonrpc": "2.0", "method": "get_data", "id": "9"}]
            """)
        let items = r?.arrayValue ?? []
        #expect(items.count == 5)
        #expect(items[0] == reply(7.0, id: "1"))
        #expect(items[1] == reply(19.0, id: "2"))
        #expect(errorCode(items[2]) == -32600 && items[2]["id"] == .null)
        #expect(errorCode(items[3]) == -32601 && items[3]["id"] == "5")
        #expect(items[4] == reply(["hello", 5], id: "9"))
    }

    @Test func batchOfNotificationsSendsNothing() {
        h.feed(#"[{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}]"# + "\n")
        #expect(h.connection.output.isEmpty)
    }
}
