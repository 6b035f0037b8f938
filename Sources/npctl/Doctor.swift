import ArgumentParser
import PlayerHostBase
import PlayerHostModel
import PlayerHostRPC

/// `npctl doctor [ID]`: the seeds' diagnostic tree, readable. For each session: can it become
/// active, is it active, is it Now Playing and why; its audio session; every command's
/// enabled/targets; which info keys are present; and each fault with its fix.
/// The host's own faults (`host.doctor`: the state file, MPRIS off and why, failed plugins with
/// the last lines of their stderr, a missing artwork helper) come first; every fix is a command
/// line to paste. It is a report, so faults
/// do not fail it (exit 0); an unknown session does (exit 1). `--json` prints `arbiter.doctor`'s
/// per-session array as it is; `npctl call host.doctor` gives the host's faults as JSON.
struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Diagnose sessions: eligibility, audio, commands, info keys, faults and their fixes (exit 0 even with faults).",
        discussion: """
            Examples:
              npctl doctor
              npctl doctor pip
              npctl --json doctor pip
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @Argument(help: ArgumentHelp("Session id (default: every session).", valueName: "id")) var id: String?

    /// The keys a display needs, shown ✓/✗ even when absent; others are listed when present.
    static let displayKeys = ["title", "artist", "albumTitle", "duration", "elapsed", "rate", "artwork"]

    func run() throws {
        try reporting {
            let remote = try HostLink(global)
            var p: [String: JSON] = [:]
            if let id = id ?? target.session { p["session"] = .string(id) }
            let report = try remote.call("arbiter.doctor", p)
            if global.json { return print(JSONPretty.format(report)) }
            let explain = try remote.call("arbiter.explain")
            // Kinds and app names are only in the session list; the doctor report is keyed by id.
            var kinds: [String: String] = [:]
            var apps: [String: JSON] = [:]
            for s in try remote.call("session.list").arrayValue ?? [] {
                if let id = s["id"]?.stringValue { kinds[id] = s["kind"]?.stringValue; apps[id] = s }
            }
            print("Now Playing: \(explain["nowPlaying"]?.stringValue ?? "nothing")")
            // The host's own faults; a daemon without host.doctor has none to say.
            let hostFaults = (try? remote.call("host.doctor"))?.arrayValue ?? []
            if hostFaults.isEmpty {
                print("host: ✓ no faults")
            } else {
                print("host faults:")
                for line in Self.faultLines(hostFaults) { print("  " + line) }
            }
            // The web remote (issue 25), only when configured: where it listens, devices, last error.
            if let r = try? remote.call("remote.status") { print("remote: \(Self.mark(r["lastError"] == nil)) " + RemoteStatus.line(r)) }
            let sessions = report.arrayValue ?? []
            if sessions.isEmpty { print("no sessions") }
            for s in sessions {
                print("")
                let id = s["session"]?.stringValue ?? ""
                for line in Self.describe(s, kind: kinds[id], listed: apps[id]) { print(line) }
            }
        }
    }

    static func mark(_ ok: Bool) -> String { ok ? "✓" : "✗" }

    /// One session's report as lines.
    /// `listed`: the session's `session.list` entry, for the app's own name and desktop entry.
    static func describe(_ s: JSON, kind: String?, listed: JSON? = nil) -> [String] {
        let id = s["session"]?.stringValue ?? "?"
        let e = s["explanation"] ?? [:]
        var app = e["app"]?.stringValue ?? "?"
        if let listed, listed["app"]?.stringValue == app {
            app = appLabel(listed)
            if let d = listed["desktopEntry"]?.stringValue { app += ", desktop entry \(d)" }
        }
        var out = ["\(id) — kind \(kind ?? "?"), app \(app)"]
        let eligible = e["eligible"] == true
        out.append("  \(mark(eligible)) " + (eligible ? "can become active" : "cannot become active (see faults)"))
        out.append("  \(mark(e["isActive"] == true)) \(e["isActive"] == true ? "active" : "not active"): \(e["activeReason"]?.stringValue ?? "")")
        out.append("  \(mark(e["isNowPlaying"] == true)) \(e["nowPlayingReason"]?.stringValue ?? "")")
        out.append("  audio: " + audio(s["audio"] ?? [:]))
        out.append("  commands:")
        out += commands(s["commands"]?.arrayValue ?? []).map { "    " + $0 }
        out.append("  info (\(s["automaticallyPublishes"] == true ? "automatic" : "manual") publishing): "
            + infoKeys(Set(s["infoKeys"]?.arrayValue?.compactMap(\.stringValue) ?? [])))
        let faults = s["faults"]?.arrayValue ?? []
        if faults.isEmpty {
            out.append("  ✓ no faults")
        } else {
            out.append("  faults:")
            out += faultLines(faults).map { "    " + $0 }
        }
        return out
    }

    /// `✗ error: message`, its `fix:` line, and a failed plugin's last stderr lines, per fault.
    static func faultLines(_ faults: [JSON]) -> [String] {
        var out: [String] = []
        for f in faults {
            let severity = f["severity"]?.stringValue ?? "error"
            let sign = severity == "error" ? "✗" : severity == "warning" ? "!" : "i"
            out.append("\(sign) \(severity): \(f["message"]?.stringValue ?? "?")")
            let stderr = f["stderr"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if !stderr.isEmpty {
                out.append("    last lines of its stderr:")
                out += stderr.map { "    | " + printable($0) }
            }
            if let fix = f["fix"]?.stringValue { out.append("    fix: \(fix)") }
        }
        return out
    }

    /// A plugin's line with its control characters (terminal escapes) shown as `^[`-style
    /// text: what a plugin wrote must not drive the user's terminal.
    static func printable(_ line: String) -> String {
        var out = ""
        for u in line.unicodeScalars {
            if u.value < 0x20 && u != "\t" {
                out += "^" + String(UnicodeScalar(UInt8(u.value + 0x40)))
            } else if u.value == 0x7F || (0x80..<0xA0).contains(u.value) {
                out += "?"
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// `category playback, options none, ✓ active, ✓ non-mixable, ✗ background audio`.
    static func audio(_ a: JSON) -> String {
        let options = a["options"]?.arrayValue?.compactMap(\.stringValue) ?? []
        var parts = ["category \(a["category"]?.stringValue ?? "?")",
                     "options \(options.isEmpty ? "none" : options.joined(separator: ", "))",
                     "\(mark(a["active"] == true)) active",
                     a["mixable"] == true ? "✗ mixable" : "✓ non-mixable",
                     "\(mark(a["backgroundAudio"] == true)) background audio"]
        if a["interrupted"] == true {
            let by = a["interruptedBy"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ", ") ?? "?"
            parts.append("✗ interrupted by \(by)")
        }
        return parts.joined(separator: ", ")
    }

    /// One line per command that is enabled or targeted (the half-configured ones named as the
    /// fault they are); the commands that are simply off share one line, so the report stays
    /// readable while still accounting for every command.
    static func commands(_ list: [JSON]) -> [String] {
        var out: [String] = []
        var off: [String] = []
        let width = list.compactMap { $0["command"]?.stringValue?.count }.max() ?? 0
        for c in list {
            let name = c["command"]?.stringValue ?? "?"
            let enabled = c["isEnabled"] == true
            let targets = c["targets"]?.intValue ?? 0
            guard enabled || targets > 0 else { off.append(name); continue }
            var line = "\(mark(enabled && targets > 0)) \(name.padding(width))  \(enabled ? "enabled" : "disabled"), "
                + (targets == 0 ? "no target" : targets == 1 ? "1 target" : "\(targets) targets")
            if !enabled { line += " — \(name) has a target but is disabled" }
            if targets == 0 { line += " — \(name) is enabled but has no target" }
            out.append(line)
        }
        if !off.isEmpty { out.append("✗ off (disabled, no target): " + off.joined(separator: ", ")) }
        return out
    }

    /// `✓ title ✓ artist ✗ artwork …; also queueIndex, queueCount`.
    static func infoKeys(_ present: Set<String>) -> String {
        var s = displayKeys.map { "\(mark(present.contains($0))) \($0)" }.joined(separator: " ")
        let others = present.subtracting(displayKeys).sorted()
        if !others.isEmpty { s += "; also " + others.joined(separator: ", ") }
        return s
    }
}

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
