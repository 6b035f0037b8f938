@testable import PlayerHost

/// A connection with no socket: feed it bytes, read back the reply lines it produced.
final class RPCHarness {
    let dispatcher: RPCDispatcher
    let connection: RPCConnection

    init(methods: [RPCMethod] = [], limits: RPCLimits = RPCLimits()) {
        var table = MethodTable()
        table.register(methods)
        dispatcher = RPCDispatcher(table: table, limits: limits)
        connection = RPCConnection(id: 1, dispatcher: dispatcher)
    }

    /// Feeds `text` in one chunk; returns the disposition.
    @discardableResult
    func feed(_ text: String) -> RPCConnection.Disposition {
        feed(Array(text.utf8))
    }

    @discardableResult
    func feed(_ bytes: [UInt8]) -> RPCConnection.Disposition {
        bytes.withUnsafeBytes { connection.receive($0) }
    }

    /// Takes every complete output line, parsed.
    func takeReplies() -> [JSON] {
        let out = connection.pendingOutput
        connection.discardOutput()
        return out.split(separator: 0x0A, omittingEmptySubsequences: true).map { line in
            try! JSONParser.parse(Array(line))
        }
    }

    /// Sends one line and returns the single reply (or nil when nothing was sent).
    func roundTrip(_ line: String) -> JSON? {
        feed(line + "\n")
        let r = takeReplies()
        precondition(r.count <= 1, "more than one reply line: \(r)")
        return r.first
    }
}

/// The JSON-RPC 2.0 specification's example methods (§7).
enum SpecExampleMethods {
    static var all: [RPCMethod] {
        [
            .sync("subtract", summary: "minuend - subtrahend",
                  params: [.required("minuend", .number), .required("subtrahend", .number)]) { call throws(RPCError) in
                .double(try call.params.double("minuend") - call.params.double("subtrahend"))
            },
            .sync("sum", summary: "sum of up to three", params: [.optional("a", .number), .optional("b", .number), .optional("c", .number)]) { call throws(RPCError) in
                .double((try call.params.optionalDouble("a") ?? 0) + (try call.params.optionalDouble("b") ?? 0) + (try call.params.optionalDouble("c") ?? 0))
            },
            .sync("update", summary: "a notification target", params: (1...5).map { .optional("p\($0)", .any) }) { _ in .null },
            .sync("notify_hello", summary: "a notification target", params: [.optional("n", .any)]) { _ in .null },
            .sync("get_data", summary: "a fixed array") { _ in ["hello", 5] },
        ]
    }
}

func reply(_ result: JSON, id: JSON) -> JSON {
    ["jsonrpc": "2.0", "result": result, "id": id]
}

func errorCode(_ reply: JSON?) -> Int? {
    reply?["error"]?["code"]?.intValue
}
