/// A D-Bus value of the few types MPRIS uses, so code above the loop layer never touches sd-bus.
public indirect enum DBusValue: Sendable, Hashable {
    case string(String)
    case objectPath(String)
    case boolean(Bool)
    case double(Double)
    case int64(Int64)
    /// `as`
    case strings([String])
    /// `a{sv}`: written in key order, so equal dictionaries make equal messages.
    case dictionary([String: DBusValue])

    /// The D-Bus type signature.
    public var signature: String {
        switch self {
        case .string: return "s"
        case .objectPath: return "o"
        case .boolean: return "b"
        case .double: return "d"
        case .int64: return "x"
        case .strings: return "as"
        case .dictionary: return "a{sv}"
        }
    }

    public var stringValue: String? {
        switch self {
        case .string(let s), .objectPath(let s): return s
        default: return nil
        }
    }

    public var boolValue: Bool? {
        if case .boolean(let b) = self { return b }
        return nil
    }

    public var doubleValue: Double? {
        if case .double(let d) = self { return d }
        return nil
    }

    public var int64Value: Int64? {
        if case .int64(let i) = self { return i }
        return nil
    }
}

/// A D-Bus error reply: a well-known error name and a message for the caller.
public struct DBusError: Error, Sendable, Hashable {
    public var name: String
    public var message: String

    public init(_ name: String, _ message: String) {
        self.name = name
        self.message = message
    }

    /// `org.freedesktop.DBus.Error.InvalidArgs`
    public static func invalidArgs(_ message: String) -> DBusError {
        DBusError("org.freedesktop.DBus.Error.InvalidArgs", message)
    }

    /// `org.freedesktop.DBus.Error.NotSupported`
    public static func notSupported(_ message: String) -> DBusError {
        DBusError("org.freedesktop.DBus.Error.NotSupported", message)
    }
}

/// What an exported object answers, by D-Bus interface name (the MPRIS meaning of the names is
/// the MPRIS layer's: `MPRISInterface`). Called on the loop thread, from inside `sd_bus_process`.
public protocol DBusObjectHandler: AnyObject {
    /// The current value of a property; nil → an error reply.
    func value(of property: String, in interface: String) -> DBusValue?
    /// A property write (sd-bus checked the type against the vtable already).
    func set(_ property: String, in interface: String, to value: DBusValue) -> Result<Void, DBusError>
    /// A method call with its arguments (type-checked by sd-bus against the vtable).
    func call(_ member: String, in interface: String, arguments: [DBusValue]) -> Result<Void, DBusError>
}
