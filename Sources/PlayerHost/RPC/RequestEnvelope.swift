import Glibc
import PlayerHostBase

/// The members of a request object the dispatcher reads. `nil` means the member is absent.
struct RequestEnvelope: Equatable {
    var id: JSON?
    /// The id's text as sent, when it is a number the writer would not give back the same
    /// (`RequestID`); only the general path sets it, the fast scanner takes no such ids.
    var idText: [UInt8]?
    var version: JSON?
    var method: JSON?
    var params: JSON?

    /// The envelope of a parsed request object (any other members are ignored).
    init(members o: [String: JSON]) {
        // One pass over the members instead of four hashed lookups: an envelope has a handful of
        // members, and comparing short keys costs far less than hashing them. Keys are unique, so
        // each variable is what `o[key]` would be.
        for (key, member) in o {
            switch key {
            case "id": id = member
            case "jsonrpc": version = member
            case "method": method = member
            case "params": params = member
            default: continue
            }
        }
    }

    init() {}
}
