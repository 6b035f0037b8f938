import ArgumentParser
import PlayerHostBase
import PlayerHostModel
import PlayerHostRPC

/// The session a promote/demote means: the argument, else `-s`. Never the Now Playing
/// default — promoting "whatever plays" is never what anyone means.
enum SessionArgument {
    static func pick(_ argument: String?, _ option: SessionOption, verb: String) throws -> String {
        guard let id = argument ?? option.session else { throw Failure("name a session, e.g. npctl \(verb) pip", code: 2) }
        return id
    }
}
