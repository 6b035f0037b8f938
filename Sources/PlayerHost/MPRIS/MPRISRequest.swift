import PlayerHostBase
import PlayerHostLoop
import PlayerHostModel

/// What an MPRIS method call or property write asks the host to do: a pure mapping from the
/// D-Bus request and the current properties to a command-center command of the Now Playing
/// session (the path `command.send` takes), so a disabled command does nothing.
public enum MPRISRequest: Sendable, Hashable {
    /// Send this command to the Now Playing session.
    case send(RemoteCommandKind, payload: [String: JSON])
    /// Open a URI (OpenUri), when a plugin can.
    case open(String)
    /// Valid, but nothing to do (the spec says to ignore it).
    case ignore
    /// A D-Bus error reply.
    case fail(DBusError)

    /// The longest URI `OpenUri` accepts, in bytes (longer: `LimitsExceeded`). Well past any
    /// real media URL; it keeps a peer from sending megabytes to a plugin and the log.
    public static let maxURIBytes = 8192

    /// A method of `org.mpris.MediaPlayer2.Player` (or the root interface's Raise/Quit, which
    /// do nothing: CanRaise and CanQuit are false, and Quit must not stop the host).
    public static func call(_ member: String, interface: MPRISInterface, arguments: [DBusValue],
                            properties p: MPRISProperties, now: MonotonicInstant) -> MPRISRequest {
        guard interface == .player else { return .ignore }
        switch member {
        case "Play": return .send(.play, payload: [:])
        case "Pause": return .send(.pause, payload: [:])
        case "PlayPause": return .send(.togglePlayPause, payload: [:])
        case "Stop": return .send(.stop, payload: [:])
        case "Next": return .send(.nextTrack, payload: [:])
        case "Previous": return .send(.previousTrack, payload: [:])
        case "Seek":
            guard let offset = arguments.first?.int64Value else { return .fail(.invalidArgs("Seek takes (x Offset)")) }
            guard p.session != nil else { return .ignore }
            // Any Int64 offset is a peer's: in seconds (`Microseconds.seconds`, exact and
            // trap-free) it is at most ±9.3·10¹² s, so the sum is a plain finite Double.
            let target = p.position(at: now) + Microseconds.seconds(offset)
            // The spec: past the end behaves like Next; before the start, seek to 0. Without a
            // length (a live stream), the target saturates at `Microseconds.maxSeconds`.
            if let d = p.duration, target > d { return .send(.nextTrack, payload: [:]) }
            return .send(.changePlaybackPosition, payload: ["position": .double(min(max(0, target), p.upperBound))])
        case "SetPosition":
            guard arguments.count == 2, case .objectPath(let track) = arguments[0], let us = arguments[1].int64Value else {
                return .fail(.invalidArgs("SetPosition takes (o TrackId, x Position)"))
            }
            // A stale trackid or a position outside [0, length] is ignored, per the spec.
            guard p.session != nil, track == p.trackID, us >= 0 else { return .ignore }
            let seconds = Microseconds.seconds(us)
            if let d = p.duration, seconds > d { return .ignore }
            // Without a length there is no "outside": the position saturates at maxSeconds.
            return .send(.changePlaybackPosition, payload: ["position": .double(min(seconds, p.upperBound))])
        case "OpenUri":
            guard let uri = arguments.first?.stringValue else { return .fail(.invalidArgs("OpenUri takes (s Uri)")) }
            // A bus peer's string goes to a plugin and into the log: bounded before either.
            guard uri.utf8.count <= maxURIBytes else {
                return .fail(DBusError("org.freedesktop.DBus.Error.LimitsExceeded",
                                       "OpenUri: the URI is \(uri.utf8.count) bytes, over the \(maxURIBytes)-byte limit"))
            }
            return .open(uri)
        default:
            return .fail(DBusError("org.freedesktop.DBus.Error.UnknownMethod", "no method \(member)"))
        }
    }

    /// A property write: Rate, LoopStatus, Shuffle and Volume become commands. A Volume write
    /// sets the level and unmutes (what is heard is what was asked for), clamped to
    /// [0, `maximumVolume`] of the live properties `p` (the spec: negative means 0).
    public static func set(_ property: String, interface: MPRISInterface, value: DBusValue,
                           properties p: MPRISProperties = MPRISProperties()) -> MPRISRequest {
        guard interface == .player else { return .fail(DBusError("org.freedesktop.DBus.Error.PropertyReadOnly", "\(property) is read-only")) }
        switch (property, value) {
        case ("Rate", .double(let r)):
            guard r.isFinite else { return .fail(.invalidArgs("Rate must be finite")) }
            // The spec: 0 acts as Pause; negative rates are not MPRIS's.
            if r == 0 { return .send(.pause, payload: [:]) }
            return r < 0 ? .ignore : .send(.changePlaybackRate, payload: ["rate": .double(r)])
        case ("LoopStatus", .string(let s)):
            let mode: RepeatMode
            switch s {
            case "None": mode = .off
            case "Track": mode = .one
            case "Playlist": mode = .all
            default: return .fail(.invalidArgs("LoopStatus must be None, Track or Playlist"))
            }
            return .send(.changeRepeatMode, payload: ["repeatType": .string(mode.rawValue)])
        case ("Shuffle", .boolean(let on)):
            return .send(.changeShuffleMode, payload: ["shuffleType": .string(on ? ShuffleMode.items.rawValue : ShuffleMode.off.rawValue)])
        case ("Volume", .double(let v)):
            guard v.isFinite else { return .fail(.invalidArgs("Volume must be finite")) }
            return .send(.changeVolume, payload: ["volume": .double(min(max(0, v), p.maximumVolume)), "muted": false])
        default:
            return .fail(.invalidArgs("cannot set \(property) to a \(value.signature)"))
        }
    }
}
