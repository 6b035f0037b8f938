/// The methods a server answers, by name.
public struct MethodTable {
    private(set) var methods: [String: RPCMethod] = [:]
    /// Registration order, so `rpc.discover` lists methods as they were written: a sequence
    /// number per name, so that removing one is O(1) (a provider of 20 000 methods going away
    /// used to cost a scan of the whole list per method, and blocked the loop for seconds).
    private var sequence: [String: Int] = [:]
    private var nextSequence = 0

    public init() {}

    /// Adds a method. Registering a name twice is a programmer error: the names peers bring
    /// (`plugin.provide`, `PluginContext.provide`) are checked or unregistered before they get here.
    public mutating func register(_ method: RPCMethod) {
        precondition(methods[method.name] == nil, "method \(method.name) registered twice")
        methods[method.name] = method
        sequence[method.name] = nextSequence
        nextSequence += 1
    }

    public mutating func register(_ list: [RPCMethod]) {
        for m in list { register(m) }
    }

    /// Removes a method (a plugin's, when it goes away). Returns whether it was there.
    @discardableResult
    public mutating func unregister(_ name: String) -> Bool {
        guard methods.removeValue(forKey: name) != nil else { return false }
        sequence[name] = nil
        return true
    }

    public func method(named name: String) -> RPCMethod? { methods[name] }

    /// Method names in registration order.
    var order: [String] { sequence.sorted { $0.value < $1.value }.map(\.key) }

    /// Every method in registration order.
    public var all: [RPCMethod] { order.compactMap { methods[$0] } }

    public var count: Int { methods.count }
}
