import PlayerHostBase
import PlayerHostLoop

/// A signal the MPRIS export sends, built from two property values the gate published: what a
/// desktop shell receives, exactly (no value is read from anywhere else when it goes out).
public enum MPRISSignal: Sendable, Hashable {
    /// `org.freedesktop.DBus.Properties.PropertiesChanged` on the Player interface: the changed
    /// properties with their new values, sorted by name; never empty.
    case propertiesChanged([MPRISChange])
    /// `org.mpris.MediaPlayer2.Player.Seeked(x position)`, µs.
    case seeked(Int64)

    /// What going from `old` to `new` sends: PropertiesChanged with the new value of each
    /// signalled property that differs (nothing when none does: no empty PropertiesChanged),
    /// then Seeked on a jump.
    public static func between(_ old: MPRISProperties, _ new: MPRISProperties) -> [MPRISSignal] {
        var out: [MPRISSignal] = []
        let values = new.playerProperties
        let changed = new.changedPlayerProperties(since: old).compactMap { name in values[name].map { MPRISChange(name: name, value: $0) } }
        if !changed.isEmpty { out.append(.propertiesChanged(changed)) }
        if let position = new.seekedPosition(since: old) { out.append(.seeked(position)) }
        return out
    }
}

/// One property of a PropertiesChanged and the value it carries.
public struct MPRISChange: Sendable, Hashable {
    public var name: String
    public var value: DBusValue

    public init(name: String, value: DBusValue) {
        self.name = name
        self.value = value
    }
}
