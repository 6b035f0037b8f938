import Glibc

/// Making directories the daemon keeps its files in.
public enum Directories {
    /// Creates `path` and any missing parent (each new one with `mode`, 0700 by default: the
    /// daemon's folders are the user's alone), as `mkdir -p` does. Nil when it exists afterwards,
    /// else the `errno` of the step that failed. What exists is left as it is (its mode too).
    /// Blocking: off the loop thread.
    public static func make(_ path: String, mode: mode_t = 0o700) -> Int32? {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + part
            if mkdir(prefix, mode) != 0 && errno != EEXIST { return errno }
        }
        return nil
    }
}
