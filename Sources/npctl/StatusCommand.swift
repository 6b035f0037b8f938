import ArgumentParser
import Glibc
import PlayerHost

/// `npctl status`: what the Now Playing (or `-s`) session shows, its position computed now.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the Now Playing session: state, artist — title, position/duration, [session].",
        discussion: """
            Example output:  Playing: U2 — Magnificent  1:23/5:24  [main]
            --format takes playerctl-style templates: {{artist}} - {{title}}, {{status}},
            {{position}} and {{duration}} (seconds), {{session}}, any info key, and helpers
            {{duration(position)}} (m:ss or h:mm:ss), {{lc(x)}}, {{uc(x)}}.
            --follow prints a line now and on every change until interrupted.
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption

    @Option(name: [.short, .long], help: ArgumentHelp("Template, e.g. '{{artist}} - {{title}}'.", valueName: "template"))
    var format: String?

    @Flag(name: [.customShort("F"), .long], help: "Keep printing a line on every change until interrupted.")
    var follow = false

    func run() throws {
        try reporting {
            let template = try format.map(Template.init)
            let remote = try Remote(global)
            if follow { return try Follower(remote: remote, target: target, line: { line($0, template) }).run() }
            let raw = try remote.rawSnapshot(target)
            if global.json { return print(JSONPretty.format(raw)) }
            guard !raw.isNull else { throw Failure(Remote.nothingPlaying) }
            print(line(Snapshot(raw), template))
        }
    }

    /// The text for one value (nil: nothing is Now Playing).
    private func line(_ snapshot: Snapshot?, _ template: Template?) -> String {
        guard let snapshot else { return template == nil ? "Nothing is Now Playing" : "" }
        return template?.render(snapshot) ?? snapshot.statusLine
    }
}

/// `status --follow`: subscribes, then prints one line per change (the first at once, because
/// subscribing sends the current value) until interrupted or the daemon goes away.
struct Follower {
    let remote: Remote
    let target: SessionOption
    let line: (Snapshot?) -> String

    func run() throws {
        var last: String?
        func show(_ value: JSON) {
            let text = remote.global.json ? value.jsonString : line(value.isNull ? nil : Snapshot(value))
            // Consecutive identical lines say nothing new (playerctl skips them too).
            guard text != last else { return }
            last = text
            print(text)
            fflush(nil)  // all streams (stdout is not concurrency-safe to name): a pipe would otherwise hold the lines back
        }
        if let id = target.session {
            // A named session: its own info events, after its current value.
            try remote.call("events.subscribe", ["topics": ["info", "sessions"]])
            show(try remote.call("info.get", ["session": .string(id)]))
            while true {
                let p = try next()
                if p["type"] == "sessionClosed", p["session"]?.stringValue == id { throw Failure("session \(id) closed") }
                if p["type"] == "infoChanged", p["session"]?.stringValue == id { show(p) }
            }
        }
        try remote.call("events.subscribe", ["topics": ["nowPlaying"]])
        while true {
            let p = try next()
            if p["topic"] == "nowPlaying", let value = p["nowPlaying"] { show(value) }
        }
    }

    /// The next event's params; waits as long as it takes (a quiet player is not an error).
    private func next() throws -> JSON {
        while true {
            do throws(ClientError) {
                let n = try remote.client.nextNotification(timeout: 3600)
                if n["method"] == "event", let p = n["params"] { return p }
            } catch {
                if case .timeout = error { continue }
                throw Remote.failure(error)
            }
        }
    }
}
