import PlayerHostBase

/// The one error every model operation throws.
///
/// `code` values are stable application codes; the JSON-RPC layer sends them unchanged as
/// `error.code`, with `message` and `detail` as `error.message` / `error.data` (the host renders
/// `detail`: Host/ModelJSON/ModelError+JSON.swift). A throwing operation never changes the model
/// (operations run on a draft that is dropped on error).
public struct ModelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable application error codes: the protocol's own table, so the two cannot drift.
    public typealias Code = RPCErrorCode

    /// The stable application code.
    public var code: Code
    /// A human sentence naming what was wrong.
    public var message: String
    /// What the error is about (e.g. the session `pip`), sent as JSON-RPC `data`.
    public var detail: Detail?

    public init(_ code: Code, _ message: String, detail: Detail? = nil) {
        self.code = code
        self.message = message
        self.detail = detail
    }

    public var description: String { "\(code.name) (\(code.rawValue)): \(message)" }

    /// What an error names, each field under its own wire name in `data` (nil fields are left
    /// out). A client reads these to act without parsing `message`.
    public struct Detail: Sendable, Hashable {
        public var session: String?
        public var command: String?
        /// A player by id (`"player": "p1"`).
        public var player: String?
        /// A player by index in its session (also sent as `"player"`, a number).
        public var playerIndex: Int?
        public var token: Int?
        /// A `command.configure` property.
        public var property: String?
        /// A parameter or field.
        public var field: String?
        /// The time bound, seconds, beside `field`.
        public var maxSeconds: Int?
        /// A limit's config key and its value (sent as `value`).
        public var limit: String?
        public var limitValue: Int?
        /// A refused name (sent as `value`) and the names accepted.
        public var value: String?
        public var accepted: [String]?
        /// An audio option, and a player's driver (`clock`, `external`).
        public var option: String?
        public var driver: String?
        /// A bound a number went over, beside `field`.
        public var maximum: Double?
        /// An info key, or the keys a session publishes itself and the method to use instead.
        public var key: String?
        public var keys: [String]?
        public var use: String?
        public var app: String?
        public var owner: String?
        /// A refused rate and the ones allowed.
        public var rate: Double?
        public var supportedPlaybackRates: [Double]?
        /// A refused volume and the loudest allowed.
        public var volume: Double?
        public var maximumVolume: Double?

        public init(session: String? = nil, command: String? = nil, player: String? = nil, playerIndex: Int? = nil,
                    token: Int? = nil, property: String? = nil, field: String? = nil, maxSeconds: Int? = nil,
                    limit: String? = nil, limitValue: Int? = nil, value: String? = nil, accepted: [String]? = nil,
                    option: String? = nil, driver: String? = nil, maximum: Double? = nil, key: String? = nil, keys: [String]? = nil,
                    use: String? = nil, app: String? = nil, owner: String? = nil, rate: Double? = nil,
                    supportedPlaybackRates: [Double]? = nil, volume: Double? = nil, maximumVolume: Double? = nil) {
            self.session = session
            self.command = command
            self.player = player
            self.playerIndex = playerIndex
            self.token = token
            self.property = property
            self.field = field
            self.maxSeconds = maxSeconds
            self.limit = limit
            self.limitValue = limitValue
            self.value = value
            self.accepted = accepted
            self.option = option
            self.driver = driver
            self.maximum = maximum
            self.key = key
            self.keys = keys
            self.use = use
            self.app = app
            self.owner = owner
            self.rate = rate
            self.supportedPlaybackRates = supportedPlaybackRates
            self.volume = volume
            self.maximumVolume = maximumVolume
        }
    }
}

extension ModelError {
    package static func sessionNotFound(_ id: String) -> ModelError {
        ModelError(.sessionNotFound, "no session '\(id)'", detail: Detail(session: id))
    }

    package static func invalid(_ message: String, _ detail: Detail? = nil) -> ModelError {
        ModelError(.invalidArgument, message, detail: detail)
    }

    static func state(_ message: String, _ detail: Detail? = nil) -> ModelError {
        ModelError(.invalidState, message, detail: detail)
    }

    package static func info(_ message: String, key: String? = nil) -> ModelError {
        ModelError(.invalidInfo, message, detail: key.map { Detail(key: $0) })
    }
}
