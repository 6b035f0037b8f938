import PlayerHostBase
import PlayerHostModel

/// `npctl play N` (mpc play N): plays item N of the mpv queue (`mpv.jump`); `npctl play` alone
/// stays the transport verb (see `Play`).
extension Play {
    func jump(to position: Int) throws {
        try reporting {
            guard !(playerctlOptions.allPlayers || playerctlOptions.allSessions) else {
                throw Failure("play: -a plays every player; a position is one session's", code: 2)
            }
            let index = try MPVQueueTarget.index(position, verb: "play")
            let remote = try HostLink(global)
            let session = try MPVQueueTarget.session(remote, target)
            MPVQueueTarget.finish(try MPVQueueTarget.call(remote, verb: "play", "mpv.jump", session: session, ["index": index]), global)
        }
    }
}
