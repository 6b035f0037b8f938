import ArgumentParser
import Glibc
import PlayerHostBase
import PlayerHostClient
import PlayerHostModel
import PlayerHostRPC

/// `npctl open FILE|URL… [--append | --next] [--session ID]`: play files in an mpv session
/// (`mpv.open`), as `mpv FILE` does; or queue them, as mpc's `add` and `insert` do. With
/// `-p NAME` naming an imported MPRIS player: that player's `OpenUri` on the first, as playerctl.
struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Play files or URLs in an mpv session (created if needed), replacing its queue.",
        discussion: """
            The files replace the queue of the mpv session and the first plays now, as \
            `mpv FILE` does. --append adds them after the last item (mpc add, npctl add) and \
            --next right after the current one (mpc insert); neither changes what plays. \
            Without --session: the Now Playing session if it is an mpv one, else the mpv \
            session used last, or a new one. Relative files are made absolute (the daemon runs \
            elsewhere). Success prints nothing (--json prints the session). With -p NAME naming \
            an imported MPRIS player, that player opens the first one (its OpenUri, as playerctl \
            open; a file as a file:// URI); -p playerhost is the host's own, as without -p.

            Examples:
              npctl open song.ogg
              npctl open --append ~/Music/*.flac
              npctl open --next https://example.org/radio.mp3
              npctl open --session other ~/Music/album/*.flac
              npctl -p vlc open https://example.org/radio.mp3
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption

    @Flag(name: .long, help: "Add after the last item instead of replacing the queue (mpc add).")
    var append = false

    @Flag(name: .long, help: "Add right after the current item instead of replacing the queue (mpc insert).")
    var next = false

    /// The default since `open` plays; kept so scripts written for the old default still run.
    @Flag(name: .long, help: ArgumentHelp("Replace the queue (the default).", visibility: .hidden))
    var replace = false

    @Argument(help: ArgumentHelp("Files or URLs (http://…).", valueName: "file|url"), completion: .file())
    var items: [String]

    /// A URL (`scheme://…`) as given; a file made absolute and checked, so a typo fails here
    /// rather than later inside mpv.
    static func resolve(_ item: String) throws -> String {
        if let r = item.firstRange(of: "://"), !item[..<r.lowerBound].isEmpty,
           item[..<r.lowerBound].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) {
            return item
        }
        guard access(item, R_OK) == 0 else {
            throw Failure("open: cannot read '\(item)': \(String(cString: strerror(errno)))", code: 2)
        }
        guard let p = realpath(item, nil) else { return item }
        defer { free(p) }
        return String(cString: p)
    }

    /// A URL as is; an absolute path as a `file://` URI (what `OpenUri` takes), its bytes outside
    /// the path's safe set percent-encoded as GLib's `g_filename_to_uri` does.
    static func uri(_ resolved: String) -> String {
        guard resolved.hasPrefix("/") else { return resolved }
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/!$&'()*+,;=:@".utf8)
        var out = "file://"
        for b in resolved.utf8 {
            if safe.contains(b) { out.unicodeScalars.append(Unicode.Scalar(b)) } else { out += "%" + Self.hex(b >> 4) + Self.hex(b & 15) }
        }
        return out
    }

    private static func hex(_ nibble: UInt8) -> String { String(Array("0123456789ABCDEF")[Int(nibble & 15)]) }

    /// `mprisImport.openUri`: the imported player in `session` opens `uri`; errors in npctl's words.
    static func openUri(_ remote: HostLink, session: String, uri: String) throws -> JSON {
        let player = String(session.dropFirst(PlayerTarget.importPrefix.count))
        do throws(ClientError) {
            return try remote.client.call("mprisImport.openUri", ["session": .string(session), "uri": .string(uri)])
        } catch {
            guard case .rpc(let e) = error else { throw HostLink.failure(error) }
            if e.code == RPCErrorCode.methodNotFound.rawValue {
                throw Failure("open: the daemon imports no MPRIS players (its mpris-import plugin is off)")
            }
            if e.code == RPCErrorCode.sessionNotFound.rawValue {
                let names = ((try? PlayerctlRunner.available(remote)) ?? []).map(\.instance)
                throw Failure("open: " + PlayerctlRunner.unknown("player", player, names))
            }
            throw Failure("open: \(player): \(e.message)")
        }
    }

    /// `mpv.open`'s params for `urls` in `mode` (nil: replace, the default).
    static func params(_ urls: [String], mode: String?) -> [String: JSON] {
        var p: [String: JSON] = ["urls": .array(urls.map(JSON.string))]
        if let mode { p[mode] = true }
        return p
    }

    func run() throws {
        try reporting {
            guard !items.isEmpty else { throw Failure("open: give at least one file or URL", code: 2) }
            guard [append, next, replace].filter({ $0 }).count <= 1 else {
                throw Failure("open: --append, --next and --replace are one or the other", code: 2)
            }
            let urls = try items.map(Self.resolve)
            let remote = try HostLink(global)
            // `-p NAME` naming an imported player: its own OpenUri, as playerctl's open does.
            if target.named == nil, let session = target.session {
                guard !append, !next else {
                    throw Failure("open: --append and --next queue in the host's mpv sessions; -p \(session.dropFirst(PlayerTarget.importPrefix.count)) opens one URI", code: 2)
                }
                return MPVQueueTarget.finish(try Self.openUri(remote, session: session, uri: Self.uri(urls[0])), global)
            }
            let session = try MPVQueueTarget.session(remote, target)
            let mode = append ? "append" : next ? "next" : nil
            MPVQueueTarget.finish(try MPVQueueTarget.call(remote, verb: "open", "mpv.open", session: session,
                                                          Self.params(urls, mode: mode)), global)
        }
    }
}
