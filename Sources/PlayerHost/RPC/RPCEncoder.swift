import PlayerHostBase

/// Writes JSON-RPC 2.0 envelopes straight into a byte buffer (no intermediate `JSON` objects for
/// the envelope itself; the hot path is a ping).
public enum RPCEncoder {
    private static let head: [UInt8] = Array(#"{"jsonrpc":"2.0","#.utf8)
    private static let resultKey: [UInt8] = Array(#""result":"#.utf8)
    private static let errorKey: [UInt8] = Array(#""error":"#.utf8)
    private static let idKey: [UInt8] = Array(#","id":"#.utf8)
    private static let methodKey: [UInt8] = Array(#""method":"#.utf8)
    private static let paramsKey: [UInt8] = Array(#","params":"#.utf8)

    /// A reply line (with its newline) appended to `out`.
    public static func writeReply(id: JSON, _ result: Result<JSON, RPCError>, into out: inout [UInt8]) {
        writeReplyBody(id: id, result, into: &out)
        out.append(0x0A)
    }

    /// A reply without its newline (batch members).
    static func reply(id: JSON, _ result: Result<JSON, RPCError>) -> [UInt8] {
        var out: [UInt8] = []
        writeReplyBody(id: id, result, into: &out)
        return out
    }

    private static func writeReplyBody(id: JSON, _ result: Result<JSON, RPCError>, into out: inout [UInt8]) {
        out.append(contentsOf: head)
        switch result {
        case .success(let value):
            out.append(contentsOf: resultKey)
            value.write(into: &out)
        case .failure(let error):
            out.append(contentsOf: errorKey)
            error.json.write(into: &out)
        }
        out.append(contentsOf: idKey)
        id.write(into: &out)
        out.append(0x7D)
    }

    /// A notification line.
    public static func notification(method: String, params: JSON, into out: inout [UInt8]) {
        out.append(contentsOf: head)
        out.append(contentsOf: methodKey)
        JSON.writeString(method, into: &out)
        out.append(contentsOf: paramsKey)
        params.write(into: &out)
        out.append(contentsOf: [0x7D, 0x0A])
    }

    /// A request line with an integer id.
    public static func request(method: String, params: JSON, id: Int64, into out: inout [UInt8]) {
        out.append(contentsOf: head)
        out.append(contentsOf: methodKey)
        JSON.writeString(method, into: &out)
        out.append(contentsOf: paramsKey)
        params.write(into: &out)
        out.append(contentsOf: idKey)
        JSON.int(id).write(into: &out)
        out.append(contentsOf: [0x7D, 0x0A])
    }
}
