import ArgumentParser
import PlayerHostBase
import PlayerHostModel

/// `npctl pin PLAYER` / `npctl unpin`: the player kept Now Playing (`arbiter.pin`/`unpin`).
struct Pin: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: "Keep PLAYER Now Playing — npctl's default target — while it is paused too, until npctl unpin.",
        discussion: """
            PLAYER is a session id or an imported player's name as -p takes it (spotify, \
            mpv.instance42). The pin is kept by name across the player's restarts and the \
            daemon's. npctl doctor and arbiter.explain say when a choice comes from it. \
            Success prints nothing.

            Examples:
              npctl pin spotify
              npctl unpin
            """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: "a session id or an imported player's name") var player: String

    func run() throws {
        try reporting {
            let r = try HostLink(global).call("arbiter.pin", ["player": .string(player)])
            if global.json { print(r.jsonString) }
        }
    }
}

/// `npctl unpin`: the arbiter's own rules decide again.
struct Unpin: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpin",
        abstract: "Drop the pin: Now Playing follows the arbiter's rules again.",
        discussion: """
            A paused player that was pinned keeps Now Playing until another starts playing \
            after it. Success prints nothing.
            """)
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try reporting {
            let r = try HostLink(global).call("arbiter.unpin")
            if global.json { print(r.jsonString) }
        }
    }
}
