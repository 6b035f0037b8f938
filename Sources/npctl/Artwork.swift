import ArgumentParser
import PlayerHostBase
import PlayerHostModel
import PlayerHostRPC

/// `npctl artwork [--size WxH] [--session ID]`: the path of the best rendition of the session's
/// resolved artwork (`artwork.get`).
struct ArtworkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "artwork",
        abstract: "Print the path of the session's artwork (the best rendition for --size).",
        discussion: """
            Without --size the original. With --size WxH the smallest cached rendition at least that
            large, else one scaled down now; never larger than the original. Exits 1 with a message
            when the session shows no artwork.
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption

    @Option(name: .long, help: ArgumentHelp("The box to fit, e.g. 300x300.", valueName: "WxH"))
    var size: String?

    /// `WxH` with both sides 1…10000.
    static func parseSize(_ s: String) throws -> (Int, Int) {
        let parts = s.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...10_000).contains(w), (1...10_000).contains(h) else {
            throw Failure("artwork: --size must be WxH with sides 1…10000, e.g. 300x300", code: 2)
        }
        return (w, h)
    }

    func run() throws {
        try reporting {
            var params: [String: JSON] = [:]
            if let size {
                let (w, h) = try Self.parseSize(size)
                params["width"] = .int(Int64(w))
                params["height"] = .int(Int64(h))
            }
            if let s = target.session { params["session"] = .string(s) }
            let result = try HostLink(global).call("artwork.get", params)
            if global.json { return print(JSONPretty.format(result)) }
            guard let path = result["path"]?.stringValue else { throw Failure("artwork: the session shows no artwork") }
            print(path)
        }
    }
}
