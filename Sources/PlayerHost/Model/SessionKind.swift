import PlayerHostBase

/// What kind of session: the built-in compositions or a plugin's own kind.
public enum SessionKind: Sendable, Hashable, CustomStringConvertible {
    case main, pip, multiview
    case plugin(String)

    /// `main`, `pip`, `multiview`, or any other identifier as a plugin kind.
    public init(_ name: String) throws {
        switch name {
        case "main": self = .main
        case "pip": self = .pip
        case "multiview": self = .multiview
        default:
            guard !name.isEmpty, name.count <= 64,
                name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." })
            else { throw ModelError.invalid("session kind '\(name)' is not an identifier") }
            self = .plugin(name)
        }
    }

    public var description: String {
        switch self {
        case .main: return "main"
        case .pip: return "pip"
        case .multiview: return "multiview"
        case .plugin(let k): return k
        }
    }

    /// Players a session of this kind gets when the creator does not say.
    public var defaultPlayerCount: Int { self == .multiview ? 4 : 1 }
}
