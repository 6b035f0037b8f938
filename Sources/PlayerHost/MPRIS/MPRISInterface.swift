/// Which of the two MPRIS interfaces a property or method belongs to (the loop's D-Bus glue knows
/// interfaces only by name).
public enum MPRISInterface: String, Sendable, Hashable, CaseIterable {
    /// `org.mpris.MediaPlayer2`
    case root = "org.mpris.MediaPlayer2"
    /// `org.mpris.MediaPlayer2.Player`
    case player = "org.mpris.MediaPlayer2.Player"

    /// The D-Bus interface name.
    public var name: String { rawValue }

    /// The interface a D-Bus name is (nil: not an MPRIS one).
    public init?(name: String) { self.init(rawValue: name) }
}
