import PlayerHostBase

/// `npctl doctor`: the seeds' diagnostic tree as data.
extension NowPlayingModel {
    /// Every fault of a session, most severe first, each with its fix.
    public func diagnostics(session id: SessionID, now: MonotonicInstant) throws -> [Diagnostic] {
        var m = self
        let t = max(now, clock)
        m.settle(to: t)
        return m.faults(of: try m.session(id))
    }

    /// Commands set up only halfway are never available: a warning each, even on an eligible
    /// session (its remotes show fewer buttons than meant).
    func halfSetUpCommands(of s: Session) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for kind in RemoteCommandKind.allCases {
            let c = s.commandCenter[kind]
            if !c.targets.isEmpty, !c.isEnabled {
                out.append(Diagnostic(severity: .warning, code: "commandTargetedButDisabled",
                                      message: "\(kind.rawValue) has a target but is disabled",
                                      fix: enable(s.id, kind, true) + " (or its app removes the target)"))
            }
            if c.isEnabled, c.targets.isEmpty {
                let fix = s.driver == .external
                    ? "its app (the plugin or player behind it) must handle \(kind.rawValue) (command.addTarget); or turn it off: \(enable(s.id, kind, false))"
                    : "\(FixCommand.call("command.bindDefaults", session: s.id)), or turn it off: \(enable(s.id, kind, false))"
                out.append(Diagnostic(severity: .warning, code: "commandEnabledWithoutTarget",
                                      message: "\(kind.rawValue) is enabled but has no target", fix: fix))
            }
        }
        return out
    }

    /// `npctl call command.enable '{"session":…,"command":…,"enabled":…}'`.
    private func enable(_ id: SessionID, _ kind: RemoteCommandKind, _ on: Bool) -> String {
        FixCommand.call("command.enable", session: id, [("command", FixCommand.jsonString(kind.rawValue)), ("enabled", on ? "true" : "false")])
    }

    package func faults(of s: Session) -> [Diagnostic] {
        var out: [Diagnostic] = Eligibility(s).failures.map {
            // A session that has not played yet is inactive by design (apps activate right
            // before they play, issue 22): a warning that says so, not an error.
            $0.code == "audioInactive"
                ? Diagnostic(severity: .warning, code: $0.code,
                             message: "\($0.reason): it activates when it first plays, and cannot be Now Playing until then",
                             fix: $0.fix)
                : Diagnostic(severity: .error, code: $0.code, message: $0.reason, fix: $0.fix)
        }
        let published = publishedInfo(s)
        let info = published.info
        let sessionPlayers = players(of: s)
        let playing = sessionPlayers.contains { $0.timeline.isPlaying }
        let loaded = sessionPlayers.contains { $0.timeline.currentItem != nil }

        for (i, p) in sessionPlayers.enumerated() where p.timeline.status == .failed {
            let item = p.timeline.currentItem?.title.map { " on \"\($0)\"" } ?? ""
            out.append(Diagnostic(severity: .error, code: "playerFailed", message: "player \(i + 1) of \(s.id) failed\(item)",
                                  fix: s.driver == .external
                                      ? "open something playable in it (npctl open FILE for mpv)"
                                      : FixCommand.call("player.load", session: s.id, [("items", #"[{"title":"…","url":"FILE"}]"#)])))
        }
        if !s.automaticallyPublishes {
            let rate = info.rate ?? 0
            if playing, rate == 0 {
                out.append(Diagnostic(severity: .error, code: "rateZeroWhilePlaying",
                                      message: "rate is 0 while the player is playing: displays show paused",
                                      fix: "publish elapsed and rate together when playback starts (info.update {elapsed, rate})"))
            } else if !playing, loaded, rate > 0 {
                out.append(Diagnostic(severity: .error, code: "rateWhilePaused",
                                      message: "rate is \(rate) while the player is paused: displays keep counting",
                                      fix: "publish elapsed and rate 0 when playback pauses"))
            }
            if info.duration != nil, info.elapsed == nil {
                out.append(Diagnostic(severity: .warning, code: "noElapsed",
                                      message: "no elapsed: the progress bar cannot move",
                                      fix: "publish elapsed at the key moments (play, pause, seek, track change)"))
            }
        }
        if info.title == nil {
            out.append(Diagnostic(severity: .warning, code: "noTitle", message: "no title: nothing will display",
                                  fix: s.driver == .external ? "its player gives the current item no title: tag the file with one"
                                      : s.automaticallyPublishes ? "load items with titles: " + FixCommand.call("player.load", session: s.id, [("items", #"[{"title":"…","url":"FILE"}]"#)])
                                      : FixCommand.call("info.update", session: s.id, [("info", #"{"title":"…"}"#)])))
        }
        if info.duration == nil, !info.isLiveStream, !(info.isEmpty && !loaded) {
            out.append(Diagnostic(severity: .warning, code: "noDuration",
                                  message: "no duration: displays cannot show progress",
                                  fix: "give items a duration, or set isLiveStream for live content"))
        }
        if info[.artwork] == nil {
            out.append(Diagnostic(severity: .info, code: "noArtwork", message: "no artwork: displays show a placeholder",
                                  fix: s.automaticallyPublishes
                                      ? "give the current item a cover (embedded in the file, or artwork in the item's info)"
                                      : FixCommand.call("info.update", session: s.id,
                                                        [("info", #"{"artwork":{"id":"cover","sources":["file:///path/to/cover.jpg"]}}"#)])))
        }
        out += artworkFaults(s, info)
        for k in [RemoteCommandKind.skipForward, .skipBackward] {
            let c = s.commandCenter[k]
            if c.isEnabled, c.configuration.preferredIntervals.isEmpty {
                out.append(Diagnostic(severity: .warning, code: "noPreferredIntervals",
                                      message: "\(k.rawValue) has no preferredIntervals: remotes cannot label the button",
                                      fix: FixCommand.call("command.configure", session: s.id,
                                                           [("command", FixCommand.jsonString(k.rawValue)), ("preferredIntervals", "[15]")])))
            }
        }
        out += halfSetUpCommands(of: s)
        if s.driver == .external {
            out.append(Diagnostic(severity: .info, code: "externalDriver",
                                  message: "players are driven by their backend: command.bindDefaults enables commands but binds no built-in target, and player.* is refused",
                                  fix: "the backend handles each command with command.addTarget \(s.id) and reports the engine with player.sync"))
        }
        let rate = s.commandCenter[.changePlaybackRate]
        if rate.isEnabled, rate.configuration.supportedPlaybackRates.isEmpty {
            out.append(Diagnostic(severity: .warning, code: "noSupportedRates",
                                  message: "changePlaybackRate has no supportedPlaybackRates: every rate is refused",
                                  fix: FixCommand.call("command.configure", session: s.id,
                                                       [("command", #""changePlaybackRate""#), ("supportedPlaybackRates", "[0.5,1,1.5,2]")])))
        }
        if s.app != Self.hostApp, !s.audio.backgroundAudio {
            out.append(Diagnostic(severity: .info, code: "noBackgroundAudio",
                                  message: "without backgroundAudio the session stops when app \(s.app) disconnects",
                                  fix: "create the session with backgroundAudio true if it should outlive its app"))
        }
        let rank: [Diagnostic.Severity: Int] = [.error: 0, .warning: 1, .info: 2]
        return out.enumerated().sorted { (rank[$0.element.severity]!, $0.offset) < (rank[$1.element.severity]!, $1.offset) }
            .map(\.element)
    }
}
