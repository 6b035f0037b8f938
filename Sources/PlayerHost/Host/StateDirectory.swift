import Glibc
import PlayerHostModel

/// Whether a directory is one the host's state may be kept in, as sshd's `StrictModes` judges
/// a user's `~/.ssh`: owned by this user and writable by nobody else. Another user who can write
/// there can plant a state file (sessions the daemon then restores and publishes) or a link
/// where the daemon writes; one who owns it can do anything with it.
public enum StateDirectory {
    /// What is wrong with the directory, and the command that fixes it.
    public struct Problem: Sendable, Equatable {
        /// "is owned by uid 0, not by this user (uid 1000)", "is writable by its group (mode 0775)".
        public var message: String
        /// `chmod 700 '<dir>'`, `sudo chown 1000 '<dir>'`, or both.
        public var fix: String
    }

    /// The directory's problem, or nil when it is fine or does not exist yet (it is then made,
    /// 0700). Follows a link to the directory: it is the directory's owner and mode that matter.
    public static func check(_ directory: String) -> Problem? {
        var st = stat()
        guard stat(directory, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else { return nil }
        return problem(uid: st.st_uid, mode: st.st_mode, me: geteuid(), directory: directory)
    }

    /// The judgement on an owner and a mode (pure, for tests).
    static func problem(uid: uid_t, mode: mode_t, me: uid_t, directory: String) -> Problem? {
        var messages: [String] = []
        var fixes: [String] = []
        let quoted = FixCommand.quoted(directory)
        if uid != me {
            messages.append("is owned by uid \(uid), not by this user (uid \(me))")
            fixes.append("sudo chown \(me) \(quoted)")
        }
        let writable = mode & 0o022
        if writable != 0 {
            let who = writable == 0o022 ? "its group and others" : writable == 0o020 ? "its group" : "others"
            messages.append("is writable by \(who) (mode \(String(mode & 0o7777, radix: 8)))")
            fixes.append("chmod 700 \(quoted)")
        }
        guard !messages.isEmpty else { return nil }
        return Problem(message: messages.joined(separator: " and "), fix: fixes.joined(separator: " && "))
    }
}
