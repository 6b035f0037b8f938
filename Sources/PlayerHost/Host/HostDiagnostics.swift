import Glibc
import PlayerHostBase
import PlayerHostClient
import PlayerHostLoop
import PlayerHostModel

/// `host.doctor`: the host's own faults, outside any session, each with a fix a person can
/// paste (issue 22: `doctor` said `host: ✓ no faults` while MPRIS was off, a plugin had failed
/// with its traceback only in the log, and the artwork helper could not start).
///
/// - the state file (its store's faults, with the file's `path`);
/// - MPRIS off, and why: disabled in the config, no session bus, the name taken, the bus lost;
/// - plugins that failed (or keep exiting), with the last lines of their stderr (`stderr`);
/// - the artwork helper missing (covers never resolve), or artwork off altogether.
extension HostDaemon {
    /// Every host fault as `host.doctor` answers it: `{severity, code, message, fix}` plus
    /// `path` (a file) or `stderr` (a plugin's last lines) where there is one.
    public var hostDiagnostics: [JSON] {
        var out: [JSON] = (state?.diagnostics ?? []).map { d, path in Self.json(d, ["path": .string(path)]) }
        out += Self.mprisFaults(status: mpris?.status, configPath: namedConfig, configFile: options.configPath).map { Self.json($0) }
        out += pluginDiagnostics
        out += artworkDiagnostics.map { d, path in Self.json(d, path.map { ["path": .string($0)] } ?? [:]) }
        // Most severe first, as a session's faults are; otherwise in the order above.
        let rank = ["error": 0, "warning": 1, "info": 2]
        return out.enumerated().sorted {
            (rank[$0.element["severity"]?.stringValue ?? ""] ?? 3, $0.offset) < (rank[$1.element["severity"]?.stringValue ?? ""] ?? 3, $1.offset)
        }.map(\.element)
    }

    static func json(_ d: Diagnostic, _ extra: [String: JSON] = [:]) -> JSON {
        guard case .object(var o) = d.toJSON() else { return d.toJSON() }
        for (k, v) in extra { o[k] = v }
        return .object(o)
    }

    /// `-- --config PATH` when the daemon was given one, for the restart fix.
    private var configWords: String { Self.configWords(namedConfig) }

    /// The config file named with `--config` (nil: the default path, which a restart finds
    /// by itself, present or not).
    private var namedConfig: String? { options.configRequired ? options.configPath : nil }

    static func configWords(_ configPath: String?) -> String {
        configPath.map { " -- --config \(FixCommand.word($0))" } ?? ""
    }

    /// MPRIS off, and why, from the bridge's status (nil: there is no bridge). `configPath`:
    /// the file named with `--config`, if any; `configFile`: the file read (for the message).
    static func mprisFaults(status: MPRISBridge.Status?, configPath: String?, configFile: String? = nil) -> [Diagnostic] {
        let name = MPRISBridge.busName
        let restart = "npctl daemon stop && npctl daemon start\(configWords(configPath))"
        switch status {
        case .disabled?:
            return [Diagnostic(severity: .warning, code: "mprisDisabled",
                               message: "MPRIS is off: [mpris] enabled = false in the config, so desktop media controls, media keys and playerctl cannot see PlayerHost",
                               fix: "remove `enabled = false` from [mpris] in \(configFile ?? configPath ?? "the config file"), then: \(restart)")]
        case .noSessionBus?:
            return [Diagnostic(severity: .warning, code: "mprisNoSessionBus",
                               message: "MPRIS is off: the daemon found no session bus (DBUS_SESSION_BUS_ADDRESS unset, no $XDG_RUNTIME_DIR/bus), so desktop media controls cannot see PlayerHost",
                               fix: "start the daemon from your desktop session: systemctl --user restart playerhostd, or from a desktop terminal: \(restart)")]
        case .queued?:
            return [Diagnostic(severity: .warning, code: "mprisNameTaken",
                               message: "MPRIS is off: another process owns \(name) (another playerhostd?); PlayerHost waits in line for the name",
                               fix: "see who owns it: busctl --user status \(name); stop that process and PlayerHost takes the name at once")]
        case .reconnecting?:
            return [Diagnostic(severity: .warning, code: "mprisReconnecting",
                               message: "MPRIS is off for now: the session bus connection was lost; reconnecting (100 ms doubling to 5 s)",
                               fix: "nothing to do if the bus comes back; otherwise restart the daemon in your desktop session: systemctl --user restart playerhostd")]
        case nil:
            return [Diagnostic(severity: .warning, code: "mprisOff", message: "MPRIS is off: the bridge did not start",
                               fix: "see the daemon's log; restart it: \(restart)")]
        case .connecting?, .active?, .stopped?:
            return []
        }
    }

    /// Supervised plugins that failed or keep exiting, and built-ins that failed.
    var pluginDiagnostics: [JSON] {
        var out: [JSON] = []
        for e in supervisor?.entries ?? [] where !e.removed {
            let name = e.spec.name
            let how = e.lastExit.map { $0.signal != 0 ? "killed by signal \($0.signal)" : "exited with status \($0.status)" }
            var extra: [String: JSON] = ["plugin": .string(name)]
            if !e.stderrTail.isEmpty { extra["stderr"] = .array(e.stderrTail.lines.map(JSON.string)) }
            let byHand = "\(FixCommand.word(e.spec.path)) --socket \(FixCommand.word(socketPathForFixes))"
            switch e.state {
            case .failed:
                let why = e.lastError ?? "it exited at once \(e.restartPolicy.quickDeaths) times in a row\(how.map { " (last: \($0))" } ?? "")"
                out.append(Self.json(Diagnostic(
                    severity: .error, code: "pluginFailed",
                    message: "plugin \(name) failed: \(why); it is not restarted",
                    fix: e.lastError != nil
                        ? "check \(FixCommand.word(e.spec.path)) (the path in the config or the plugin directory); once fixed: npctl daemon reload (starts it again)"
                        : "run it by hand to see why: \(byHand); once fixed: npctl daemon reload (starts it again)"),
                    extra))
            case .backoff where e.restarts > 0:
                out.append(Self.json(Diagnostic(
                    severity: .warning, code: "pluginRestarting",
                    message: "plugin \(name) keeps exiting\(how.map { " (\($0))" } ?? ""): restarted \(e.restarts) time\(e.restarts == 1 ? "" : "s")",
                    fix: "run it by hand to see why: \(byHand)"),
                    extra))
            default:
                break
            }
        }
        for (name, error) in inProcess.failures.sorted(by: { $0.key < $1.key }) {
            out.append(Self.json(Diagnostic(severity: .error, code: "pluginFailed",
                                            message: "built-in plugin \(name) failed: \(error)",
                                            fix: "see the daemon's log; restart it: npctl daemon stop && npctl daemon start\(configWords)"),
                                 ["plugin": .string(name)]))
        }
        return out
    }

    /// The socket the daemon serves, as a plugin run by hand should be given it.
    private var socketPathForFixes: String { options.socketPath }

    /// Artwork off, or its helper missing: covers never resolve. (The helper starts on first
    /// use, so a missing file is looked for here rather than waited for.)
    var artworkDiagnostics: [(Diagnostic, String?)] {
        guard let resolver = artwork else {
            return [(Diagnostic(severity: .warning, code: "artworkOff",
                                message: "artwork is off: its cache directory could not be made, so no cover is shown",
                                fix: "make the cache directory writable (mkdir -p \"${XDG_CACHE_HOME:-$HOME/.cache}/playerhost\"), then: npctl daemon stop && npctl daemon start\(configWords)"), nil)]
        }
        return Self.artworkHelperFaults(executable: resolver.helper.executable).map { ($0, resolver.helper.executable) }
    }

    /// The helper at `path` cannot be run: a fault naming it and how to install it.
    static func artworkHelperFaults(executable path: String) -> [Diagnostic] {
        guard access(path, X_OK) != 0 else { return [] }
        let dir = SocketLocation.directory(of: path)
        return [Diagnostic(severity: .error, code: "artworkHelperMissing",
                            message: "the artwork helper cannot start: \(path) is missing or not executable, so no cover is shown",
                            fix: "install playerhost-artwork beside playerhostd: scripts/install.sh does; or: install -m 755 \"$(swift build --show-bin-path)/playerhost-artwork\" \(FixCommand.word(dir))/")]
    }
}
