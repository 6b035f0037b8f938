import PlayerHostBase

/// Builds the OpenRPC document `rpc.discover` returns, from the method table itself.
public enum OpenRPCDocument {
    public static func make(table: MethodTable, title: String, version: String) -> JSON {
        let methods: [JSON] = table.all.map { m in
            let params: [JSON] = m.params.map { p in
                var o: [String: JSON] = [
                    "name": .string(p.name),
                    "required": .bool(p.required),
                    "schema": p.type.schema,
                ]
                if !p.summary.isEmpty { o["description"] = .string(p.summary) }
                return .object(o)
            }
            var result: [String: JSON] = ["name": "result", "schema": m.result.schema]
            if !m.resultSummary.isEmpty { result["description"] = .string(m.resultSummary) }
            return .object([
                "name": .string(m.name),
                "summary": .string(m.summary),
                "paramStructure": "by-name",
                "params": .array(params),
                "result": .object(result),
            ])
        }
        let errors: [JSON] = RPCErrorCode.allCases.map {
            .object(["code": .int(Int64($0.rawValue)), "message": .string($0.meaning)])
        }
        return .object([
            "openrpc": "1.2.6",
            "info": .object(["title": .string(title), "version": .string(version)]),
            "methods": .array(methods),
            "components": .object(["x-error-codes": .array(errors)]),
        ])
    }
}
