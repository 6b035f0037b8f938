import Testing
@testable import PlayerHost

/// What a hostile or broken client can send, and that each gets a clear error and changes nothing.
@Suite struct RPCHostileInputTests {
    let h = RPCHarness(methods: SpecExampleMethods.all + [
        .sync("echo", summary: "returns its params", params: [.optional("v", .any)]) { call in call.params["v"] ?? .null },
    ])

    @Test(arguments: [
        #"{"jsonrpc":"2.0","method":"echo","#,
        #"{"jsonrpc":"2.0""#,
        #"["#,
        #"{"#,
        #"nul"#,
    ])
    func truncatedJSON(_ line: String) {
        let r = h.roundTrip(line)
        #expect(errorCode(r) == -32700)
        #expect(r?["id"] == .null)
    }

    @Test func wrongVersion() {
        for v in [#""1.0""#, "2.0", "null", #""2.00""#] {
            let r = h.roundTrip(#"{"jsonrpc":\#(v),"method":"echo","id":7}"#)
            #expect(errorCode(r) == -32600)
            #expect(r?["id"] == 7, "a valid id is echoed even in an invalid request")
        }
        #expect(errorCode(h.roundTrip(#"{"method":"echo","id":8}"#)) == -32600)
    }

    @Test func nonStringMethod() {
        for m in ["1", "null", "[]", "{}", "true"] {
            #expect(errorCode(h.roundTrip(#"{"jsonrpc":"2.0","method":\#(m),"id":1}"#)) == -32600)
        }
    }

    @Test func idOfArrayOrObjectType() {
        for id in ["[1]", #"{"a":1}"#, "true"] {
            let r = h.roundTrip(#"{"jsonrpc":"2.0","method":"echo","id":\#(id)}"#)
            #expect(errorCode(r) == -32600)
            #expect(r?["id"] == .null)
        }
    }

    @Test func idEchoedExactly() {
        #expect(h.roundTrip(#"{"jsonrpc":"2.0","method":"echo","id":"abc"}"#)?["id"] == "abc")
        #expect(h.roundTrip(#"{"jsonrpc":"2.0","method":"echo","id":9007199254740993}"#)?["id"] == .int(9007199254740993))
        #expect(h.roundTrip(#"{"jsonrpc":"2.0","method":"echo","id":-3}"#)?["id"] == -3)
        #expect(h.roundTrip(#"{"jsonrpc":"2.0","method":"echo","id":1.5}"#)?["id"] == 1.5)
        // "id": null is a request (not a notification) and is answered with id null.
        let r = h.roundTrip(#"{"jsonrpc":"2.0","method":"echo","params":{"v":1},"id":null}"#)
        #expect(r == reply(1, id: .null))
    }

    @Test func paramsAsAString() {
        let r = h.roundTrip(#"{"jsonrpc":"2.0","method":"echo","params":"x","id":2}"#)
        #expect(errorCode(r) == -32600)
        #expect(r?["id"] == 2)
    }

    @Test func unknownMethod() {
        #expect(errorCode(h.roundTrip(#"{"jsonrpc":"2.0","method":"no.such","id":1}"#)) == -32601)
        #expect(h.roundTrip(#"{"jsonrpc":"2.0","method":"no.such"}"#) == nil, "a notification never gets a reply")
    }

    @Test func invalidParams() {
        let missing = h.roundTrip(#"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":1},"id":1}"#)
        #expect(errorCode(missing) == -32602)
        #expect(missing?["error"]?["data"]?["param"] == "subtrahend")
        let typo = h.roundTrip(#"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":1,"subtrahnd":2},"id":1}"#)
        #expect(errorCode(typo) == -32602)
        let type = h.roundTrip(#"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":"1","subtrahend":2},"id":1}"#)
        #expect(errorCode(type) == -32602)
        let tooMany = h.roundTrip(#"{"jsonrpc":"2.0","method":"subtract","params":[1,2,3],"id":1}"#)
        #expect(errorCode(tooMany) == -32602)
    }

    @Test func invalidUTF8() {
        var bytes = Array(#"{"jsonrpc":"2.0","method":"echo","params":{"v":""#.utf8)
        bytes += [0xC3, 0x28]  // a broken two-byte sequence
        bytes += Array(#""},"id":1}"#.utf8) + [0x0A]
        h.feed(bytes)
        let r = h.takeReplies()
        #expect(r.count == 1)
        #expect(errorCode(r.first) == -32700)
        // Still usable afterwards.
        #expect(h.roundTrip(#"{"jsonrpc":"2.0","method":"echo","params":{"v":"ok"},"id":2}"#) == reply("ok", id: 2))
    }

    @Test func hundredThousandNestedBrackets() {
        let r = h.roundTrip(String(repeating: "[", count: 100_000))
        #expect(errorCode(r) == -32700)
        #expect(h.roundTrip(#"{"jsonrpc":"2.0","method":"echo","id":3}"#)?["result"] == .null)
    }

    @Test func lineOverTheCapIsOneErrorAndSkipped() {
        var limits = RPCLimits()
        limits.maxLineBytes = 1024
        let small = RPCHarness(methods: SpecExampleMethods.all, limits: limits)
        let get = #"{"jsonrpc":"2.0","method":"get_data","id":1}"#
        // A whole overlong line, then a request in the same chunk.
        #expect(small.feed(String(repeating: " ", count: 600) + String(repeating: "x", count: 600) + "\n" + get + "\n") == .keepOpen)
        var r = small.takeReplies()
        #expect(r.count == 2)
        #expect(errorCode(r.first) == RPCErrorCode.limitExceeded.rawValue)
        #expect(r.first?["error"]?["data"]?["limit"] == 1024)
        #expect(r.first?["id"] == .null, "the request was never read: no id to echo")
        #expect(r.last == reply(["hello", 5], id: 1), "the next line is served")
        // An overlong line arriving in pieces: one error when it passes the cap, the rest of it
        // dropped up to its newline, then framing goes on.
        #expect(small.feed(String(repeating: "y", count: 1500)) == .keepOpen)
        r = small.takeReplies()
        #expect(r.count == 1 && errorCode(r.first) == RPCErrorCode.limitExceeded.rawValue)
        #expect(small.feed(String(repeating: "z", count: 5000)) == .keepOpen)
        #expect(small.takeReplies().isEmpty, "one error per line, not per chunk")
        #expect(small.feed("zz\n" + get + "\n") == .keepOpen)
        #expect(small.takeReplies() == [reply(["hello", 5], id: 1)])
    }

    @Test func lineAtTheCapIsAccepted() {
        var limits = RPCLimits()
        limits.maxLineBytes = 1024
        let small = RPCHarness(methods: SpecExampleMethods.all, limits: limits)
        let base = #"{"jsonrpc":"2.0","method":"get_data","id":1}"#
        let line = base + String(repeating: " ", count: 1024 - base.utf8.count)
        #expect(small.feed(line + "\n") == .keepOpen)
        #expect(small.takeReplies() == [reply(["hello", 5], id: 1)])
    }

    @Test func requestSplitOneBytePerWrite() {
        let line = Array((#"{"jsonrpc":"2.0","method":"subtract","params":[5,3],"id":"é"}"# + "\n").utf8)
        for (i, b) in line.enumerated() {
            #expect(h.feed([b]) == .keepOpen)
            if i < line.count - 1 { #expect(h.connection.output.isEmpty) }
        }
        #expect(h.takeReplies() == [reply(2.0, id: "é")])
    }

    @Test func twoRequestsInOneWrite() {
        h.feed(#"{"jsonrpc":"2.0","method":"subtract","params":[5,3],"id":1}"# + "\n" + #"{"jsonrpc":"2.0","method":"subtract","params":[9,3],"id":2}"# + "\r\n")
        #expect(h.takeReplies() == [reply(2.0, id: 1), reply(6.0, id: 2)])
    }

    @Test func blankLinesAreIgnored() {
        h.feed("\n\r\n   \n")
        #expect(h.connection.output.isEmpty)
    }

    @Test func batchOverTheLimit() {
        var limits = RPCLimits()
        limits.maxBatch = 4
        let small = RPCHarness(methods: SpecExampleMethods.all, limits: limits)
        let item = #"{"jsonrpc":"2.0","method":"get_data","id":1}"#
        let r = small.roundTrip("[" + Array(repeating: item, count: 5).joined(separator: ",") + "]")
        #expect(errorCode(r) == RPCErrorCode.limitExceeded.rawValue)
        #expect(small.dispatcher.requestsServed == 0, "nothing of an over-limit batch runs")
    }
}
