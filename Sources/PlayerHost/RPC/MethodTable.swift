/// The methods a server answers, by name.
public struct MethodTable {
    private(set) var methods: [String: RPCMethod] = [:]
    /// Registration order, so `rpc.discover` lists methods as they were written.
    private(set) var order: [String] = []

    public init() {}

    /// Adds a method. Registering a name twice is a programmer error.
    public mutating func register(_ method: RPCMethod) {
        precondition(methods[method.name] == nil, "method \(method.name) registered twice")
        methods[method.name] = method
        order.append(method.name)
    }

    public mutating func register(_ list: [RPCMethod]) {
        for m in list { register(m) }
    }

    /// Removes a method (a plugin's, when it goes away). Returns whether it was there.
    @discardableResult
    public mutating func unregister(_ name: String) -> Bool {
        guard methods.removeValue(forKey: name) != nil else { return false }
        order.removeAll { $0 == name }
        return true
    }

    public func method(named name: String) -> RPCMethod? { methods[name] }

    /// Every method in registration order.
    public var all: [RPCMethod] { order.map { methods[$0]! } }

    public var count: Int { order.count }
}
