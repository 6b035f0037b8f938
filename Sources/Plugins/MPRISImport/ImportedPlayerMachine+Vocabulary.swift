import PlayerHostPluginAPI

/// The imported player's vocabulary: its phases, inputs, actions and what a bus reply is for.
extension ImportedPlayerMachine {
    /// Where the import of the player stands.
    enum Phase: Equatable {
        /// Not started.
        case idle
        /// Reading the root interface (`Identity`, `DesktopEntry`).
        case readingRoot
        /// Reading the player interface, with what the root said.
        case readingPlayer(identity: String, desktopEntry: String?)
        /// The app connection is being opened.
        case openingApp
        /// The session, its audio and its command targets are being created.
        case creatingSession
        /// Imported: signals make moments, moments make reports.
        case ready
        /// The import could not go on (no app connection, no session); the player stays as is.
        case stuck(String)
        /// The name went: nothing more goes out, answers still come back.
        case closed
    }

    /// One round of reads or reports at a time: what comes meanwhile makes one more after it.
    enum Round: Equatable {
        case idle
        case inFlight(again: Bool)

        var isInFlight: Bool { self != .idle }
    }

    /// The audio session as the machine left it.
    struct Audio: Equatable {
        var active = false
        /// The model interrupted it (an `interruption began` not yet ended).
        var interruptedByModel = false
        /// We paused it for that interruption: its end with `shouldResume` plays it again.
        var pausedByUs = false
        /// Whether the player played when the audio was last matched to it (or when the model
        /// interrupted it): only a change into Playing after that is the player playing again
        /// on its own. A report still saying Playing after our Pause went out is not one.
        var wasPlaying = false
    }

    /// A host request the driver holds the reply closure of.
    typealias Token = Int

    /// A call on the player's object (`/org/mpris/MediaPlayer2`).
    enum BusCall: Equatable {
        /// `Properties.GetAll(interface)`.
        case getAll(String)
        /// `Properties.Get(Player, property)` within `timeoutMs`.
        case get(String, timeoutMs: UInt64)
        /// A method of the player interface within `timeoutMs`.
        case method(String, [DBusValue], timeoutMs: UInt64)
        /// `Properties.Set(Player, property, value)`.
        case set(String, DBusValue)
    }

    /// What a bus reply is for.
    enum Purpose: Equatable {
        case readRoot
        case readPlayer
        case refresh
        /// The Position read of a moment.
        case momentPosition
        /// The fresh Position read before a Seek by offset.
        case freshPosition(Token, JSON)
        /// A command's call; `seekTarget` is where a Seek by offset puts it (seconds).
        case command(Token, name: String, seekTarget: Double?)
        case openUri(Token)
        /// Pause or Play for an interruption (its log line's words).
        case interruption(String)
    }

    /// What happens to the imported player.
    enum Input {
        case start
        /// The reply to the bus call with this tag.
        case reply(Int, Result<[DBusValue], DBusError>)
        /// The bus call with this tag could not be sent (the bus client is gone).
        case unsent(Int)
        case appOpened(Result<Void, RPCError>)
        case sessionCreated(Result<Void, RPCError>)
        /// `PropertiesChanged` from the player.
        case propertiesChanged(interface: String, changed: [String: DBusValue], invalidated: [String])
        /// `Seeked(position)`: nil when out of range.
        case seeked(Int64?)
        /// The host's reply to a `player.sync` (an error's message).
        case synced(error: String?)
        /// A command for the player, to answer with a status.
        case perform(Token, JSON)
        /// `OpenUri(uri)`, to answer with the session or an error.
        case openUri(Token, String)
        /// An event from the host (interruptions of the session).
        case hostEvent(JSON)
        case close
    }

    /// What the driver does, in order.
    enum Action: Equatable {
        /// Call the player; the reply comes back as `reply(tag, …)` (or `unsent(tag)`).
        case call(Int, BusCall)
        /// Open the app connection named after the player; answer with `appOpened`.
        case openApp(String, desktopEntry: String?)
        /// Close the app connection (its session goes with it).
        case closeApp
        /// Create the session; answer with `sessionCreated`.
        case createSession
        /// A notification to the host on the app connection.
        case hostSend(String, [String: JSON])
        /// Register the command target for `command` (disabled), whose events come as `perform`.
        case addTarget(String)
        /// Take the host's events on the app connection (as `hostEvent`).
        case listen
        /// `player.sync` with these params; answer with `synced`.
        case sync([String: JSON])
        case answer(Token, CommandStatus)
        case answerOpenUri(Token, Result<JSON, RPCError>)
        case log(String)
    }
}
