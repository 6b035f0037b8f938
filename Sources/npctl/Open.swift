import ArgumentParser
import Glibc
import PlayerHostBase
import PlayerHostClient
import PlayerHostModel
import PlayerHostRPC

/// `npctl open FILE|URL… [-s SESSION] [--replace]`: play files in an mpv session (`mpv.open`).
struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open files or URLs in an mpv session (created if needed) and play them.",
        discussion: """
            Without -s they go to the most recently used mpv session, or a new one. Relative \
            files are made absolute (the daemon runs elsewhere). --replace replaces the queue \
            instead of appending to it. Prints the session id.

            Examples:
              npctl open song.ogg https://example.org/radio.mp3
              npctl open -s other --replace ~/Music/*.flac
            """)
    @OptionGroup var global: GlobalOptions

    @Option(name: [.short, .long], help: ArgumentHelp("mpv session id (default: the last one used, or a new one).", valueName: "id"))
    var session: String?

    @Flag(name: .long, help: "Replace the session's queue instead of appending.")
    var replace = false

    @Argument(help: ArgumentHelp("Files or URLs (http://…, av://lavfi:…).", valueName: "file|url"))
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

    func run() throws {
        try reporting {
            guard !items.isEmpty else { throw Failure("open: give at least one file or URL", code: 2) }
            let urls = try items.map(Self.resolve)
            var params: [String: JSON] = ["urls": .array(urls.map(JSON.string))]
            if let session { params["session"] = .string(session) }
            if replace { params["replace"] = true }
            let remote = try Remote(global)
            let result: JSON
            do throws(ClientError) { result = try remote.client.call("mpv.open", params) } catch {
                if case .rpc(let e) = error, e.code == RPCErrorCode.methodNotFound.rawValue {
                    throw Failure("open: the daemon has no mpv sessions (is mpv installed where playerhostd runs?)")
                }
                throw Remote.failure(error)
            }
            if global.json { return print(JSONPretty.format(result)) }
            print(result["id"]?.stringValue ?? "?")
        }
    }
}
