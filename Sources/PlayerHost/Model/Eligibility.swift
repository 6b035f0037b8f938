import PlayerHostBase

/// Why a session can or cannot become active (SPEC §1, Eligibility).
///
/// All of: (1) a non-mixable category, (2) audio active and not interrupted, (3) at least one
/// available (enabled and targeted) command. Every failing condition is listed, in that order,
/// with the exact reason, so `arbiter.explain` and `npctl doctor` can name the fault.
public struct Eligibility: Sendable, Hashable {
    /// One failed condition: a stable code, the sentence, and how to fix it.
    public struct Failure: Sendable, Hashable {
        public var code: String
        public var reason: String
        public var fix: String
    }

    public var failures: [Failure]

    public var isEligible: Bool { failures.isEmpty }

    /// The failure sentences, e.g. `["category ambient is mixable: never Now Playing"]`.
    public var reasons: [String] { failures.map(\.reason) }

    /// Whether `session` can become active, without building the reasons: reconciliation and
    /// `session.list` ask it of many sessions, most of them not eligible while they are being
    /// set up, and the reasons are sentences formatted for each (the same conditions as `init`).
    public static func isEligible(_ session: Session) -> Bool {
        let a = session.audio
        return !a.isMixable && a.isActive && !a.isInterrupted && session.commandCenter.hasAvailableCommand
    }

    /// The eligibility of `session`.
    public init(_ session: Session) {
        var f: [Failure] = []
        let a = session.audio
        let id = session.id
        if a.category == .ambient {
            f.append(Failure(code: "mixableCategory", reason: "category ambient is mixable: never Now Playing",
                             fix: FixCommand.call("audio.configure", session: id, [("category", "\"playback\"")])))
        }
        for option in a.options.sorted() {
            let reason = option == .mixWithOthers
                ? "option mixWithOthers makes the audio session mixable: never Now Playing"
                : "option duckOthers implies mixWithOthers: never Now Playing"
            // Configuring without options drops them all (the category stays).
            f.append(Failure(code: "mixableOption", reason: reason,
                             fix: FixCommand.call("audio.configure", session: id,
                                                  [("category", FixCommand.jsonString(a.category.rawValue))])))
        }
        if !a.isActive {
            f.append(Failure(code: "audioInactive", reason: "audio session not active",
                             fix: "\(FixCommand.activate(id)), or play it: npctl play --session \(FixCommand.word(id))"))
        } else if a.isInterrupted {
            let by = a.interruptions.sorted().map { src -> String in
                switch src {
                case .system: return "the system"
                case .session(let s): return "session \(s)"
                }
            }.joined(separator: " and ")
            let fix = a.interruptions.contains(.system)
                ? "wait for the system's interruption to end (npctl call audio.interrupt '{\"type\":\"ended\"}' ends it)"
                : "\(FixCommand.activate(id)) (takes the audio back, as pressing play in it would)"
            f.append(Failure(code: "interrupted", reason: "audio session interrupted by \(by)", fix: fix))
        }
        let center = session.commandCenter
        if center.availableCommands.isEmpty {
            var details: [String] = []
            for kind in RemoteCommandKind.allCases {
                let c = center[kind]
                if !c.targets.isEmpty, !c.isEnabled { details.append("\(kind.rawValue) has a target but is disabled") }
                if c.isEnabled, c.targets.isEmpty { details.append("\(kind.rawValue) is enabled but has no target") }
            }
            let reason = details.isEmpty
                ? "no available command: no command is enabled and targeted"
                : "no available command: " + details.joined(separator: "; ")
            let fix = session.driver == .external
                ? "its app must handle a command (command.addTarget and command.enable); see npctl plugins"
                : FixCommand.call("command.bindDefaults", session: id)
            f.append(Failure(code: "noAvailableCommand", reason: reason, fix: fix))
        }
        failures = f
    }
}
