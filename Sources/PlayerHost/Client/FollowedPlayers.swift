/// The players `--follow` watches, in the order it asks them for a line: playerctl's player
/// manager (`playerctl-player-manager.c` with `playerctl-cli.c`'s follow). The first player
/// in `order` that can answer the verb prints; when none can, the line is cleared.
///
/// playerctl's rules, kept exactly:
/// - a player that appears (and is selected: `-p`, `-i`) goes first;
/// - a player whose change the verb follows (`FollowRule`) moves to the top: the most recently
///   active player is the one followed;
/// - with `-p` and without `-a`, `-p`'s order of preference comes first (a stable sort after
///   every move, as `playerctl_player_manager_set_sort_func` does), recency only among players
///   of equal rank (the ones `%any` stands for, or instances of one name);
/// - with `-a` (or no `-p`), recency alone.
public struct FollowedPlayers: Sendable, Equatable {
    /// The instances, the one asked first first.
    public private(set) var order: [String] = []
    let selection: PlayerSelection
    /// `-p` without `-a`: ranked by `-p`'s order, then by recency.
    let ranked: Bool

    public init(selection: PlayerSelection, allPlayers: Bool) {
        self.selection = selection
        ranked = selection.players != nil && !allPlayers
    }

    /// The players there when following starts, in the order they are listed: each is taken
    /// in `-p`'s order and put first in turn, as playerctl manages them one by one.
    public mutating func start(with available: [String]) {
        order = []
        for instance in selection.sorted(available) { appear(instance) }
    }

    /// Whether a player of this name may be followed at all (`-p`, `-i`).
    public func selects(_ instance: String) -> Bool { selection.isSelected(instance) }

    /// A player came: first (with `-p`, before the first player of its rank or a lower one,
    /// `g_list_insert_sorted`). Not selected, or already there: nothing.
    public mutating func appear(_ instance: String) {
        guard selection.isSelected(instance), !order.contains(instance) else { return }
        guard ranked else { return order.insert(instance, at: 0) }
        let rank = selection.rank(instance)
        let at = order.firstIndex { rank <= selection.rank($0) } ?? order.endIndex
        order.insert(instance, at: at)
    }

    /// A player went away.
    public mutating func vanish(_ instance: String) {
        order.removeAll { $0 == instance }
    }

    /// A player changed in a way the verb follows: it goes first (then `-p`'s ranks are
    /// restored by a stable sort, so it is first among its equals).
    public mutating func touch(_ instance: String) {
        guard let i = order.firstIndex(of: instance) else { return }
        order.remove(at: i)
        order.insert(instance, at: 0)
        if ranked {
            order = order.enumerated().sorted { a, b in
                let (ra, rb) = (selection.rank(a.element), selection.rank(b.element))
                return ra != rb ? ra < rb : a.offset < b.offset
            }.map(\.element)
        }
    }
}
