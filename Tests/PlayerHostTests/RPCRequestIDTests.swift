import Testing
@testable import PlayerHost
@testable import PlayerHostRPC

/// Issue 13.4: a reply's id is the request's id byte for byte (JSON-RPC 2.0 §5), at the codec:
/// numbers keep their text as sent, in single requests, error replies, deferred replies and batches.
@Suite struct RPCRequestIDTests {
    let h = RPCHarness(methods: SpecExampleMethods.all + [
        .sync("host.ping", summary: "pong") { _ in "pong" },
        RPCMethod("later", summary: "a deferred reply") { _ throws(RPCError) in
            let p = RPCPromise()
            p.complete(.success("done"))
            return .deferred(p)
        },
    ])

    /// The raw reply lines, newline stripped.
    func lines(_ text: String) -> [String] {
        h.feed(text + "\n")
        let out = h.connection.output
        h.connection.output.removeAll()
        return out.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
    }

    static let numbers = [
        "123456789012345678901234567890", "1e2", "-0", "1.50", "-12.5E-3", "0.0", "9223372036854775808",
        "-9223372036854775809", "1E+300",
    ]

    @Test(arguments: numbers + ["7", "-7", "0", "9223372036854775807", #""x""#, #""1e2""#, "null"])
    func aPingEchoesTheIdAsSent(_ id: String) {
        #expect(lines(#"{"jsonrpc":"2.0","id":\#(id),"method":"host.ping"}"#) == [#"{"jsonrpc":"2.0","result":"pong","id":\#(id)}"#])
    }

    @Test(arguments: numbers)
    func errorsDeferredRepliesAndOddSpacingKeepTheText(_ id: String) {
        #expect(lines(#"{"jsonrpc":"2.0","id":\#(id),"method":"no.such"}"#).first?.hasSuffix(#","id":\#(id)}"#) == true)
        #expect(lines(#"{"jsonrpc":"2.0","id":\#(id),"method":"later"}"#) == [#"{"jsonrpc":"2.0","result":"done","id":\#(id)}"#])
        #expect(lines(#"{ "method" : "update" , "id"  :  \#(id)  , "jsonrpc":"2.0", "params": {"p1": {"id": 5}} }"#)
            == [#"{"jsonrpc":"2.0","result":null,"id":\#(id)}"#])
    }

    @Test func batchMembersEachKeepTheirOwnText() {
        let out = lines(#"[{"jsonrpc":"2.0","id":1e2,"method":"host.ping"}, 5, {"jsonrpc":"2.0","method":"host.ping"},"#
            + #" {"jsonrpc":"2.0","id":"s","method":"update","params":{"p1":[1.0,{"id":2.5}]}}, {"jsonrpc":"2.0","id":-0,"method":"no.such"},"#
            + #" {"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"later"}]"#)
        #expect(out.count == 1)
        let batch = out.first ?? ""
        #expect(batch.contains(#""result":"pong","id":1e2}"#), "\(batch)")
        #expect(batch.contains(#","id":null}"#), "the bare 5 is an invalid request: \(batch)")
        #expect(batch.contains(#""result":null,"id":"s"}"#), "\(batch)")
        #expect(batch.contains(#","id":-0}"#), "\(batch)")
        #expect(batch.contains(#""result":"done","id":123456789012345678901234567890}"#), "\(batch)")
    }

    @Test func aDuplicatedIdIsTheOneTheParserKept() {
        #expect(lines(#"{"jsonrpc":"2.0","id":1.0,"method":"host.ping","id":2.50}"#).first?.hasSuffix(#","id":2.50}"#) == true)
        #expect(lines(#"{"jsonrpc":"2.0","id":1.0,"method":"host.ping","\u0069d":3.50}"#).first?.hasSuffix(#","id":3.50}"#) == true)
        #expect(lines(#"{"jsonrpc":"2.0","id":1.5,"method":"host.ping","id":"x"}"#).first?.hasSuffix(#","id":"x"}"#) == true)
    }

    @Test func textsAreFoundOnlyForIdMembers() {
        func texts(_ s: String) -> [String?] {
            Array(s.utf8).withUnsafeBytes { RequestID.texts(in: $0) }.map { $0.map { String(decoding: $0, as: UTF8.self) } }
        }
        #expect(texts(#"{"a":{"id":1.5},"b":"\"id\":2.5","id":3.50}"#) == ["3.50"])
        #expect(texts(#"[{"id":1e2},[{"id":2.5}],{"x":"}"},{"id":"s"}]"#) == ["1e2", nil, nil, nil])
        #expect(texts(#"{"id":1.5"#) == [], "a cut line gives nothing (the parsed value is used)")
    }
}
