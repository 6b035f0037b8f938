import PlayerHostBase

/// A request's by-name parameters, with typed accessors whose errors name the parameter.
public struct RPCParams: Sendable {
    public let values: [String: JSON]

    public init(_ values: [String: JSON] = [:]) { self.values = values }

    public subscript(name: String) -> JSON? { values[name] }

    private func wrongType(_ name: String, _ expected: String) -> RPCError {
        RPCError.invalidParams("'\(name)' must be \(expected)", param: name)
    }
    private func missing(_ name: String) -> RPCError {
        RPCError.invalidParams("missing required parameter '\(name)'", param: name)
    }

    public func string(_ name: String) throws(RPCError) -> String {
        guard let v = try optionalString(name) else { throw missing(name) }
        return v
    }
    public func optionalString(_ name: String) throws(RPCError) -> String? {
        guard let v = values[name], !v.isNull else { return nil }
        guard case .string(let s) = v else { throw wrongType(name, "a string") }
        return s
    }

    public func int(_ name: String) throws(RPCError) -> Int {
        guard let v = try optionalInt(name) else { throw missing(name) }
        return v
    }
    public func optionalInt(_ name: String) throws(RPCError) -> Int? {
        guard let v = values[name], !v.isNull else { return nil }
        guard let i = v.intValue else { throw wrongType(name, "an integer") }
        return i
    }

    public func double(_ name: String) throws(RPCError) -> Double {
        guard let v = try optionalDouble(name) else { throw missing(name) }
        return v
    }
    public func optionalDouble(_ name: String) throws(RPCError) -> Double? {
        guard let v = values[name], !v.isNull else { return nil }
        guard let d = v.doubleValue, d.isFinite else { throw wrongType(name, "a number") }
        return d
    }

    public func bool(_ name: String) throws(RPCError) -> Bool {
        guard let v = try optionalBool(name) else { throw missing(name) }
        return v
    }
    public func optionalBool(_ name: String) throws(RPCError) -> Bool? {
        guard let v = values[name], !v.isNull else { return nil }
        guard case .bool(let b) = v else { throw wrongType(name, "true or false") }
        return b
    }

    public func array(_ name: String) throws(RPCError) -> [JSON] {
        guard let v = try optionalArray(name) else { throw missing(name) }
        return v
    }
    public func optionalArray(_ name: String) throws(RPCError) -> [JSON]? {
        guard let v = values[name], !v.isNull else { return nil }
        guard case .array(let a) = v else { throw wrongType(name, "an array") }
        return a
    }

    public func stringArray(_ name: String) throws(RPCError) -> [String]? {
        guard let a = try optionalArray(name) else { return nil }
        var out: [String] = []
        out.reserveCapacity(a.count)
        for item in a {
            guard case .string(let s) = item else { throw wrongType(name, "an array of strings") }
            out.append(s)
        }
        return out
    }

    public func object(_ name: String) throws(RPCError) -> [String: JSON] {
        guard let v = try optionalObject(name) else { throw missing(name) }
        return v
    }
    public func optionalObject(_ name: String) throws(RPCError) -> [String: JSON]? {
        guard let v = values[name], !v.isNull else { return nil }
        guard case .object(let o) = v else { throw wrongType(name, "an object") }
        return o
    }
}
