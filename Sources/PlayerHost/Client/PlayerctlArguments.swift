/// playerctl's global options, taken out of npctl's command line before the argument parser
/// sees it, wherever they stand (before or after the verb, as GOption allows), so every verb
/// reads them the same way: `-p/--player`, `-i/--ignore-player`, `-a/--all-players`,
/// `-l/--list-all`, `-s/--no-messages`, `-f/--format`, `-F/--follow`,
/// `-v/--version`, and npctl's `--all` (every session). Short flags combine (`-as`). `--`
/// ends the options.
///
/// `open` keeps its own `-s` (its mpv session) and `call` its arguments untouched.
public struct PlayerctlArguments: Sendable, Equatable {
    public var player: String?
    public var ignore: String?
    public var allPlayers = false
    /// npctl's `--all`: every session (not only the MPRIS players).
    public var allSessions = false
    public var listAll = false
    public var noMessages = false
    public var format: String?
    public var follow = false
    public var version = false

    public init() {}

    public var selection: PlayerSelection { PlayerSelection(player: player, ignore: ignore) }

    public enum Failure: Error, Equatable {
        /// An option that takes a value came last.
        case missingValue(String)
    }

    /// Splits `args` into playerctl's options and the rest (order kept).
    public static func extract(_ args: [String]) throws(Failure) -> (PlayerctlArguments, [String]) {
        var o = PlayerctlArguments()
        var rest: [String] = []
        let valued: [String: WritableKeyPath<PlayerctlArguments, String?>] = [
            "-p": \.player, "--player": \.player, "-i": \.ignore, "--ignore-player": \.ignore,
            "-f": \.format, "--format": \.format,
        ]
        let flags: [Character: WritableKeyPath<PlayerctlArguments, Bool>] = [
            "a": \.allPlayers, "l": \.listAll, "s": \.noMessages, "F": \.follow, "v": \.version,
        ]
        let longFlags: [String: WritableKeyPath<PlayerctlArguments, Bool>] = [
            "--all-players": \.allPlayers, "--all": \.allSessions, "--list-all": \.listAll,
            "--no-messages": \.noMessages, "--follow": \.follow, "--version": \.version,
        ]
        var verb: String?
        var i = 0
        while i < args.count {
            let a = args[i]
            if a == "--" { rest += args[i...]; break }
            if verb == "call" { rest.append(a); i += 1; continue }
            if verb == nil, !a.hasPrefix("-") { verb = a }
            if let key = valued[a] {
                guard i + 1 < args.count else { throw .missingValue(a) }
                o[keyPath: key] = args[i + 1]
                i += 2
                continue
            }
            if let eq = a.firstIndex(of: "="), a.hasPrefix("--"), let key = valued[String(a[..<eq])] {
                o[keyPath: key] = String(a[a.index(after: eq)...])
                i += 1
                continue
            }
            if let key = longFlags[a] { o[keyPath: key] = true; i += 1; continue }
            // -pNAME, -fTEMPLATE: GOption's attached values.
            if a.count > 2, a.hasPrefix("-"), !a.hasPrefix("--"), let key = valued[String(a.prefix(2))] {
                o[keyPath: key] = String(a.dropFirst(2))
                i += 1
                continue
            }
            let letters = a.dropFirst()
            if a.hasPrefix("-"), !a.hasPrefix("--"), !letters.isEmpty, letters.allSatisfy({ flags[$0] != nil }),
               !(verb == "open" && letters.contains("s")) {
                for l in letters { if let key = flags[l] { o[keyPath: key] = true } }
                i += 1
                continue
            }
            rest.append(a)
            i += 1
        }
        return (o, rest)
    }
}
