/// playerctl's `-p/--player` and `-i/--ignore-player`: comma-separated names, where a name
/// matches a player instance exactly or as its prefix before a dot (`mpv` matches
/// `mpv.instance42`), `%any` matches every player, and the order of `-p` is the order of
/// preference (players `%any` stands for go where it stands).
public struct PlayerSelection: Sendable, Equatable {
    /// `-p`'s names in order; nil: every player.
    public var players: [String]?
    /// `-i`'s names.
    public var ignored: [String]

    public init(player: String? = nil, ignore: String? = nil) {
        players = player.map(Self.list)
        ignored = ignore.map(Self.list) ?? []
    }

    /// `a, b,,c` → `[a, b, c]` (strtok drops empty fields; each is stripped).
    static func list(_ s: String) -> [String] {
        s.split(separator: ",").map { String($0).trimmingBlanks }.filter { !$0.isEmpty }
    }

    /// `pctl_player_name_string_instance_compare`: `name` names `instance`.
    public static func matches(_ name: String, _ instance: String) -> Bool {
        if name == "%any" || instance == "%any" || name == instance { return true }
        return instance.hasPrefix(name + ".")
    }

    /// True when `instance` is not ignored and, with `-p`, named by it.
    public func isSelected(_ instance: String) -> Bool {
        if ignored.contains(where: { Self.matches($0, instance) }) { return false }
        guard let players else { return true }
        return players.contains { Self.matches($0, instance) }
    }

    /// The selected instances of `available`, in `-p`'s order of preference (a stable sort,
    /// as playerctl's; unnamed players keep their order).
    public func select(_ available: [String]) -> [String] {
        sorted(available).filter(isSelected)
    }

    /// `available` in `-p`'s order (every player, selected or not: `-l` filters after).
    public func sorted(_ available: [String]) -> [String] {
        guard players != nil else { return available }
        return available.enumerated().sorted { a, b in
            let (ra, rb) = (rank(a.element), rank(b.element))
            return ra != rb ? ra < rb : a.offset < b.offset
        }.map(\.element)
    }

    /// Where `instance` stands in `-p`'s order of preference: the index of the first name
    /// that names it, else where `%any` stands, else after every name (playerctl's
    /// `player_name_string_compare_func`). 0 for every player without `-p`.
    public func rank(_ instance: String) -> Int {
        guard let players else { return 0 }
        let any = players.firstIndex(of: "%any") ?? Int.max
        return players.indices.first { players[$0] != "%any" && Self.matches(players[$0], instance) } ?? any
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and newlines (`g_strstrip`).
    var trimmingBlanks: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\n" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\n" || l == "\r" { s = s.dropLast() }
        return String(s)
    }
}
