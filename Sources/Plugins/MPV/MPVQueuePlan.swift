import PlayerHostPluginAPI

/// What queue edits (`mpv.open`'s modes, `mpv.clear`, `mpv.remove`, `mpv.move`, `mpv.jump`)
/// send to mpv, given its playlist as read at that moment. Pure, so the index arithmetic reads
/// (and is tested) in one place. Indices are 0-based here and on the wire; npctl shows them
/// 1-based, as `npctl queue` prints them.
enum MPVQueuePlan {
    /// How `mpv.open` puts files in the queue.
    enum LoadMode: String, Equatable {
        /// The queue becomes the files and the first plays (`mpv FILE`); the default.
        case replace
        /// After the last item, nothing else changes (mpc `add`).
        case append
        /// Right after the current item, nothing else changes (mpc `insert`).
        case next
    }

    /// An edit of the queue as it is.
    enum Edit: Equatable {
        /// Empties the queue and stops (mpc `clear`).
        case clear
        /// Removes the item at an index (mpc `del`); the current one: the next plays.
        case remove(Int)
        /// Moves the item at `from` so that it ends at index `to` (mpc `move`).
        case move(from: Int, to: Int)
        /// Plays the item at an index (mpc `play N`).
        case jump(Int)
    }

    /// An index outside the queue: which parameter, and the queue's length, for the caller to
    /// say it in its own words (npctl counts from 1).
    struct OutOfRange: Error, Equatable {
        let param: String
        let index: Int
        let count: Int
        var message: String {
            count == 0 ? "\(param): the queue is empty"
                : "\(param): no item at index \(index) (the queue has \(count), indices 0…\(count - 1))"
        }
    }

    /// `loadfile` commands for `urls`, mpv's playlist having `count` entries with `position`
    /// current (-1: none, e.g. the queue ended). mpv 0.35 has no `insert-next`: `next` appends
    /// each file and moves it right behind the current item (or the file before it).
    static func load(_ urls: [String], mode: LoadMode, count: Int, position: Int) -> [[JSON]] {
        var commands: [[JSON]] = []
        for (i, url) in urls.enumerated() {
            switch mode {
            case .replace:
                commands.append(["loadfile", .string(url), i == 0 ? "replace" : "append"])
            case .append:
                commands.append(["loadfile", .string(url), "append"])
            case .next:
                commands.append(["loadfile", .string(url), "append"])
                // Nothing current: there is no "after it", the end is where they go.
                guard position >= 0, position < count else { continue }
                let appended = count + i, target = position + 1 + i
                if appended != target { commands.append(["playlist-move", .int(Int64(appended)), .int(Int64(target))]) }
            }
        }
        return commands
    }

    /// The commands for `edit` on a playlist of `count` entries, or the index that is not in it.
    static func commands(_ edit: Edit, count: Int) -> Result<[[JSON]], OutOfRange> {
        func check(_ index: Int, _ param: String) -> OutOfRange? {
            (0..<count).contains(index) ? nil : OutOfRange(param: param, index: index, count: count)
        }
        switch edit {
        case .clear:
            // mpv's `stop` empties the playlist too (without `keep-playlist`).
            return .success([["stop"]])
        case .remove(let i):
            if let e = check(i, "index") { return .failure(e) }
            return .success([["playlist-remove", .int(Int64(i))]])
        case .move(let from, let to):
            if let e = check(from, "from") ?? check(to, "to") { return .failure(e) }
            if from == to { return .success([]) }
            // mpv's `playlist-move a b` puts entry a where entry b is (before it): moving down,
            // "before the entry after `to`" is what ends at `to` (b == count: the end).
            return .success([["playlist-move", .int(Int64(from)), .int(Int64(from < to ? to + 1 : to))]])
        case .jump(let i):
            if let e = check(i, "index") { return .failure(e) }
            return .success([["playlist-play-index", .int(Int64(i))]])
        }
    }
}
