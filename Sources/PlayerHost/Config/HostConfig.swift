import Glibc
import PlayerHostBase
import PlayerHostModel
import PlayerHostRPC
import Logging

// Adding a configuration key: add the property and its `CodingKeys` case as usual, and one line
// to the `schema` of its table below (`ConfigKey("artwork_cache_mb", .integer)`); a new table
// (`[mpris]`) is one line too, `ConfigKey("mpris", .table(MPRISConfig.schema))`, with the
// struct's own `schema`. The schema is what the file may say: a key missing from it is refused
// as unknown (and `HostConfigTests.schemaNamesEveryCodingKey` fails), a value of another kind is
// refused with what was expected. Ranges and cross-key rules go in `validate`.

/// The daemon's configuration file (TOML): host settings and the sessions to create at start.
///
/// ```toml
/// coalesce_ms = 250
/// [[session]]
/// id = "main"
/// kind = "main"
/// category = "playback"
/// activate = true
/// bind_defaults = true
/// autoplay = true
/// [[session.item]]
/// title = "Magnificent"
/// artist = "U2"
/// duration = 324
/// ```
public struct HostConfig: Codable, Sendable, Equatable {
    /// Control socket path (the command line's `--socket` wins).
    public var socket: String?
    /// Log level (the command line's `--log-level` wins).
    public var logLevel: String?
    /// The now-playing coalescing window, in milliseconds (default 250; 0 sends every change).
    public var coalesceMilliseconds: Int?
    /// How long an out-of-process command target may take before `commandFailed`, in ms.
    public var commandTimeoutMilliseconds: Int?
    /// Values that never replace a real title, artist or album title of the playing item
    /// (default `""`, `Loading…`, `Loading...`, `Connecting…`, `Connecting...`).
    public var placeholders: [String]?
    /// Sessions one app may own (`max_sessions_per_app`, default 1 000; the host app, which
    /// owns every non-app connection's sessions, counts as one app).
    public var maxSessionsPerApp: Int?
    /// Targets one command of one session may have (`max_targets_per_command`, default 64).
    public var maxTargetsPerCommand: Int?
    /// Items in one player's queue (`max_queue_items`, default 10 000).
    public var maxQueueItems: Int?
    /// Methods one connection may provide with `plugin.provide` (`max_provided_methods`, default 256).
    public var maxProvidedMethods: Int?
    /// Calls one caller may have waiting at methods plugins provide
    /// (`max_pending_provided_calls`, default 256).
    public var maxPendingProvidedCalls: Int?
    /// Topics one client may subscribe to (`max_subscriptions_per_client`, default 16).
    public var maxSubscriptionsPerClient: Int?
    /// Unsent output of all clients together, in MiB (`max_total_output_mb`, default 32); over
    /// it the slowest clients are cut off first.
    public var maxTotalOutputMB: Int?
    /// Requests one connection has served per loop turn before the others get theirs
    /// (`requests_per_turn`, default 32).
    public var requestsPerTurn: Int?
    /// Microseconds of requests one connection has served per loop turn before the others get
    /// theirs (`turn_budget_us`, default 1000).
    public var turnBudgetMicroseconds: Int?
    /// Unsent output, in KiB, above which a client is not read until it takes half of it
    /// (`output_high_water_kb`, default 1024; at most half the output limit takes effect).
    public var outputHighWaterKB: Int?
    /// How long a held-back client may take none of its output before it is cut off, in ms
    /// (`max_stall_ms`, default 5000).
    public var maxStallMilliseconds: Int?
    /// Sessions to create at start (owned by the host; they survive clients).
    public var sessions: [SessionConfig]
    /// Where plugin executables are found (default `$XDG_CONFIG_HOME/playerhost/plugins`).
    public var pluginDirectory: String?
    /// Plugin executables named explicitly.
    public var plugins: [PluginConfig]?
    /// Where state.json is kept (default `$XDG_STATE_HOME/playerhost`).
    public var stateDirectory: String?
    /// The largest state file, in MiB (`max_state_file_mb`, default 64): a larger one is not
    /// read at start (it is set aside), and a write that would be larger is refused (a fault).
    public var maxStateFileMB: Int?
    /// `[mpris]`: the MPRIS2 export on the session bus.
    public var mpris: MPRISConfig?
    /// `[arbiter]`: `priority` and `ignore` (see `ArbiterConfig`).
    public var arbiter: ArbiterConfig?
    /// The artwork cache's bound in MiB (default 64); least recently used files go past it.
    public var artworkCacheMB: Int?
    /// How long one artwork fetch may take, in ms (default 10000).
    public var artworkTimeoutMilliseconds: Int?
    /// The largest artwork body fetched, in KiB (default 16384); larger transfers are aborted.
    public var artworkMaxKB: Int?
    /// The most pixels (width × height, in millions) an artwork image may declare (default 100);
    /// larger ones are refused from their header, before decoding.
    public var artworkMaxMegapixels: Int?
    /// The built-in mpv plugin (`[mpv]`).
    public var mpv: MPVConfig?
    /// `[remote]`: the web remote (see `RemoteConfig`); off without it.
    public var remote: RemoteConfig?

    public init(sessions: [SessionConfig] = []) { self.sessions = sessions }

    /// Every top-level key the file may hold (see the note at the top of this file).
    static let schema: [ConfigKey] = [
        ConfigKey("socket", .string),
        ConfigKey("log_level", .string),
        ConfigKey("coalesce_ms", .integer),
        ConfigKey("command_timeout_ms", .integer),
        ConfigKey("placeholders", .array(.string)),
        ConfigKey("max_sessions_per_app", .integer),
        ConfigKey("max_targets_per_command", .integer),
        ConfigKey("max_queue_items", .integer),
        ConfigKey("max_provided_methods", .integer),
        ConfigKey("max_pending_provided_calls", .integer),
        ConfigKey("max_subscriptions_per_client", .integer),
        ConfigKey("max_total_output_mb", .integer),
        ConfigKey("requests_per_turn", .integer),
        ConfigKey("turn_budget_us", .integer),
        ConfigKey("output_high_water_kb", .integer),
        ConfigKey("max_stall_ms", .integer),
        ConfigKey("session", .tables(SessionConfig.schema)),
        ConfigKey("plugin_dir", .string),
        ConfigKey("plugin", .tables(PluginConfig.schema)),
        ConfigKey("state_dir", .string),
        ConfigKey("max_state_file_mb", .integer),
        ConfigKey("mpris", .table(MPRISConfig.schema)),
        ConfigKey("arbiter", .table(ArbiterConfig.schema)),
        ConfigKey("artwork_cache_mb", .integer),
        ConfigKey("artwork_timeout_ms", .integer),
        ConfigKey("artwork_max_kb", .integer),
        ConfigKey("artwork_max_megapixels", .integer),
        ConfigKey("mpv", .table(MPVConfig.schema)),
        ConfigKey("remote", .table(RemoteConfig.schema)),
    ]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case socket
        case logLevel = "log_level"
        case coalesceMilliseconds = "coalesce_ms"
        case commandTimeoutMilliseconds = "command_timeout_ms"
        case placeholders
        case maxSessionsPerApp = "max_sessions_per_app"
        case maxTargetsPerCommand = "max_targets_per_command"
        case maxQueueItems = "max_queue_items"
        case maxProvidedMethods = "max_provided_methods"
        case maxPendingProvidedCalls = "max_pending_provided_calls"
        case maxSubscriptionsPerClient = "max_subscriptions_per_client"
        case maxTotalOutputMB = "max_total_output_mb"
        case requestsPerTurn = "requests_per_turn"
        case turnBudgetMicroseconds = "turn_budget_us"
        case outputHighWaterKB = "output_high_water_kb"
        case maxStallMilliseconds = "max_stall_ms"
        case sessions = "session"
        case pluginDirectory = "plugin_dir"
        case plugins = "plugin"
        case stateDirectory = "state_dir"
        case maxStateFileMB = "max_state_file_mb"
        case mpris
        case arbiter
        case artworkCacheMB = "artwork_cache_mb"
        case artworkTimeoutMilliseconds = "artwork_timeout_ms"
        case artworkMaxKB = "artwork_max_kb"
        case artworkMaxMegapixels = "artwork_max_megapixels"
        case mpv
        case remote
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        socket = try c.decodeIfPresent(String.self, forKey: .socket)
        logLevel = try c.decodeIfPresent(String.self, forKey: .logLevel)
        coalesceMilliseconds = try c.decodeIfPresent(Int.self, forKey: .coalesceMilliseconds)
        commandTimeoutMilliseconds = try c.decodeIfPresent(Int.self, forKey: .commandTimeoutMilliseconds)
        placeholders = try c.decodeIfPresent([String].self, forKey: .placeholders)
        maxSessionsPerApp = try c.decodeIfPresent(Int.self, forKey: .maxSessionsPerApp)
        maxTargetsPerCommand = try c.decodeIfPresent(Int.self, forKey: .maxTargetsPerCommand)
        maxQueueItems = try c.decodeIfPresent(Int.self, forKey: .maxQueueItems)
        maxProvidedMethods = try c.decodeIfPresent(Int.self, forKey: .maxProvidedMethods)
        maxPendingProvidedCalls = try c.decodeIfPresent(Int.self, forKey: .maxPendingProvidedCalls)
        maxSubscriptionsPerClient = try c.decodeIfPresent(Int.self, forKey: .maxSubscriptionsPerClient)
        maxTotalOutputMB = try c.decodeIfPresent(Int.self, forKey: .maxTotalOutputMB)
        requestsPerTurn = try c.decodeIfPresent(Int.self, forKey: .requestsPerTurn)
        turnBudgetMicroseconds = try c.decodeIfPresent(Int.self, forKey: .turnBudgetMicroseconds)
        outputHighWaterKB = try c.decodeIfPresent(Int.self, forKey: .outputHighWaterKB)
        maxStallMilliseconds = try c.decodeIfPresent(Int.self, forKey: .maxStallMilliseconds)
        sessions = try c.decodeIfPresent([SessionConfig].self, forKey: .sessions) ?? []
        pluginDirectory = try c.decodeIfPresent(String.self, forKey: .pluginDirectory)
        plugins = try c.decodeIfPresent([PluginConfig].self, forKey: .plugins)
        stateDirectory = try c.decodeIfPresent(String.self, forKey: .stateDirectory)
        maxStateFileMB = try c.decodeIfPresent(Int.self, forKey: .maxStateFileMB)
        mpris = try c.decodeIfPresent(MPRISConfig.self, forKey: .mpris)
        arbiter = try c.decodeIfPresent(ArbiterConfig.self, forKey: .arbiter)
        artworkCacheMB = try c.decodeIfPresent(Int.self, forKey: .artworkCacheMB)
        artworkTimeoutMilliseconds = try c.decodeIfPresent(Int.self, forKey: .artworkTimeoutMilliseconds)
        artworkMaxKB = try c.decodeIfPresent(Int.self, forKey: .artworkMaxKB)
        artworkMaxMegapixels = try c.decodeIfPresent(Int.self, forKey: .artworkMaxMegapixels)
        mpv = try c.decodeIfPresent(MPVConfig.self, forKey: .mpv)
        remote = try c.decodeIfPresent(RemoteConfig.self, forKey: .remote)
    }

    /// The level `log_level` names, else `info`.
    public var effectiveLogLevel: Logger.Level {
        logLevel.flatMap(Logger.Level.init(rawValue:)) ?? .info
    }

    /// What the now-playing gate does, from `coalesce_ms` and `placeholders`.
    public var gateConfiguration: NowPlayingGate.Configuration {
        NowPlayingGate.Configuration(
            coalesceMilliseconds: coalesceMilliseconds ?? NowPlayingGate.Configuration.defaultCoalesceMilliseconds,
            placeholders: placeholders ?? NowPlayingGate.Configuration.defaultPlaceholders)
    }

    /// The plugin directory in effect.
    public func effectivePluginDirectory(environment: [String: String]) -> String {
        if let pluginDirectory { return pluginDirectory }
        if let x = environment["XDG_CONFIG_HOME"], !x.isEmpty { return x + "/playerhost/plugins" }
        return (environment["HOME"] ?? "/root") + "/.config/playerhost/plugins"
    }

    /// `$XDG_CONFIG_HOME/playerhost/playerhost.toml`, else `~/.config/playerhost/playerhost.toml`.
    public static func defaultPath(environment: [String: String]) -> String {
        if let x = environment["XDG_CONFIG_HOME"], !x.isEmpty { return x + "/playerhost/playerhost.toml" }
        return (environment["HOME"] ?? "/root") + "/.config/playerhost/playerhost.toml"
    }

    /// Parses TOML text; errors name the problem in one line: the key's path, its line when it
    /// can be found, and what was expected. Unknown keys are errors.
    public static func parse(_ text: String, source: String = "config") throws(ConfigError) -> HostConfig {
        try parse(Array(text.utf8), source: source)
    }

    /// The largest configuration file read (4 MiB: some 50 000 `[[session]]` entries). Not a
    /// key of the file: the limit on reading the file cannot come from it.
    public static let maxFileBytes = 4 << 20

    /// Reads `path`. A missing file is an error only when `required` (the user named it).
    /// A symbolic link is followed if its final target is a regular file (dotfile managers link
    /// configs); a FIFO, a device or a file over `maxFileBytes` is refused with one error, and a
    /// FIFO never blocks. Blocking I/O: off the loop thread (`ConfigReloader` reads on a worker).
    public static func load(path: String, required: Bool) throws(ConfigError) -> HostConfig {
        var config: HostConfig
        switch BoundedFile.read(path, maxBytes: maxFileBytes, links: .follow) {
        case .success(let b): config = try parse(b, source: path)
        case .failure(let e):
            guard !required && e.errno == ENOENT else { throw .config(e.description) }
            config = HostConfig()
        }
        // `remote.toml` beside it (`npctl remote enable`): its `listen` wins over `[remote]`'s.
        config.remote = try RemoteOverlay.merged(config.remote, besideConfig: path)
        return config
    }

    /// Parses the file's bytes (UTF-8 TOML 1.0, `TOMLParser`). A NUL byte is refused with its
    /// line first: the file is not text.
    public static func parse(_ bytes: [UInt8], source: String = "config") throws(ConfigError) -> HostConfig {
        if let nul = bytes.firstIndex(of: 0) {
            let line = 1 + bytes[..<nul].reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            throw .config("\(source):\(line): a NUL byte (the file is not text; nothing after it would be read)")
        }
        let table: TOMLTable
        do {
            table = try TOMLParser.parse(bytes: bytes)
        } catch {
            throw .config("\(source):\(error.line):\(error.column): \(error.reason)")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        try ConfigSchema.check(table, against: schema, source: source, text: text)
        let config: HostConfig
        do {
            config = try TOMLDecoder().decode(HostConfig.self, from: table)
        } catch {
            // The schema let through something the types do not take: the two disagree.
            throw .config("\(source): \(Self.describe(error))")
        }
        try config.validate(source: source, text: text)
        return config
    }

    /// The model's limits with this file's values over the defaults.
    public var modelLimits: ModelLimits {
        var l = ModelLimits()
        if let v = maxSessionsPerApp { l.sessionsPerApp = v }
        if let v = maxTargetsPerCommand { l.targetsPerCommand = v }
        if let v = maxQueueItems { l.itemsPerQueue = v }
        return l
    }

    /// The protocol limits with this file's fairness knobs and output budget over `base` (the
    /// command line's limits and the defaults): a key removed from the file goes back to `base`.
    public func rpcLimits(over base: RPCLimits) -> RPCLimits {
        var l = base
        if let v = maxTotalOutputMB { l.maxTotalOutputBytes = v << 20 }
        if let v = requestsPerTurn { l.requestsPerTurn = v }
        if let v = turnBudgetMicroseconds { l.turnBudgetMicroseconds = UInt64(v) }
        if let v = outputHighWaterKB { l.outputHighWaterBytes = v << 10 }
        if let v = maxStallMilliseconds { l.maxStallMilliseconds = UInt64(v) }
        return l
    }

    /// The state file's size limit in bytes (`max_state_file_mb`, default 64 MiB).
    public var maxStateFileBytes: Int { (maxStateFileMB ?? 64) << 20 }

    /// The keys `rpcLimits(over:)` reads, with their values (for reload summaries).
    package var limitKeys: [(String, Int?)] {
        [("max_total_output_mb", maxTotalOutputMB), ("requests_per_turn", requestsPerTurn),
         ("turn_budget_us", turnBudgetMicroseconds),
         ("output_high_water_kb", outputHighWaterKB), ("max_stall_ms", maxStallMilliseconds),
         ("max_subscriptions_per_client", maxSubscriptionsPerClient)]
    }

    func validate(source: String, text: String = "") throws(ConfigError) {
        // Ranges: the error names the key and its line, like the schema's.
        func check(_ key: String, _ value: Int?, _ range: ClosedRange<Int>) throws(ConfigError) {
            guard let v = value, !range.contains(v) else { return }
            let at = ConfigSchema.location(of: key, source: source, text: text)
            throw .config("\(at): \(key): must be \(range.lowerBound)…\(range.upperBound), not \(v)")
        }
        for (key, value) in [("max_sessions_per_app", maxSessionsPerApp), ("max_targets_per_command", maxTargetsPerCommand),
                             ("max_queue_items", maxQueueItems), ("max_provided_methods", maxProvidedMethods),
                             ("max_pending_provided_calls", maxPendingProvidedCalls), ("mpv.max_sessions", mpv?.maxSessions)] {
            if let v = value, v < 1 {
                throw .config("\(ConfigSchema.location(of: key, source: source, text: text)): \(key) must be at least 1")
            }
        }
        // An empty output would be mpv's probe without the `null` fallback (or no output at all).
        for (key, value) in [("mpv.ao", mpv?.audioOutput), ("mpv.vo", mpv?.videoOutput), ("mpv.audio_device", mpv?.audioDevice)] {
            if let v = value, v.allSatisfy({ $0 == " " || $0 == "," }) {
                throw .config("\(ConfigSchema.location(of: key, source: source, text: text)): \(key) must not be empty")
            }
        }
        try check("max_subscriptions_per_client", maxSubscriptionsPerClient, 1...1_000)
        try check("max_total_output_mb", maxTotalOutputMB, 1...65_536)
        try check("requests_per_turn", requestsPerTurn, 1...100_000)
        try check("turn_budget_us", turnBudgetMicroseconds, 1...1_000_000)
        try check("output_high_water_kb", outputHighWaterKB, 1...1_048_576)
        try check("max_stall_ms", maxStallMilliseconds, 10...3_600_000)
        try check("max_state_file_mb", maxStateFileMB, 1...4_096)
        var seen = Set<String>()
        for s in sessions {
            guard !s.id.isEmpty else { throw .config("\(source): a [[session]] has an empty id") }
            guard seen.insert(s.id).inserted else { throw .config("\(source): session id '\(s.id)' appears twice") }
            if let p = s.players, !(1...16).contains(p) {
                throw .config("\(source): session '\(s.id)': players must be 1…16, not \(p)")
            }
        }
        try arbiter?.validate(source: source)
        try remote?.validate(source: source)
        if let e = mpris?.export, !MPRISConfig.exportValues.contains(e) {
            let at = ConfigSchema.location(of: "export", source: source, text: text)
            throw .config("\(at): mpris.export must be one of \(MPRISConfig.exportValues.joined(separator: ", ")), not '\(e)'")
        }
        if let l = logLevel, Logger.Level(rawValue: l) == nil {
            let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw .config("\(source): log_level must be one of \(names), not '\(l)'")
        }
        if let c = coalesceMilliseconds, !(0...60_000).contains(c) { throw .config("\(source): coalesce_ms must be 0…60000") }
        // Upper bounds too: the values are shifted into byte counts, and the helper reads at most 64 MiB.
        if let a = artworkCacheMB, !(1...1_048_576).contains(a) { throw .config("\(source): artwork_cache_mb must be 1…1048576") }
        if let a = artworkTimeoutMilliseconds, !(1...600_000).contains(a) { throw .config("\(source): artwork_timeout_ms must be 1…600000") }
        if let a = artworkMaxKB, !(1...65_536).contains(a) { throw .config("\(source): artwork_max_kb must be 1…65536") }
        if let a = artworkMaxMegapixels, !(1...10_000).contains(a) { throw .config("\(source): artwork_max_megapixels must be 1…10000") }
    }

    /// The effective configuration as TOML (`playerhostd --print-config`).
    public func tomlString() -> String {
        (try? TOMLEncoder().encode(self)) ?? ""
    }

    private static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.typeMismatch(let type, let ctx):
            return "\(path(ctx.codingPath)): expected \(type)"
        case DecodingError.keyNotFound(let key, let ctx):
            return "\(path(ctx.codingPath + [key])): missing"
        case DecodingError.valueNotFound(let type, let ctx):
            return "\(path(ctx.codingPath)): expected \(type)"
        case DecodingError.dataCorrupted(let ctx):
            return "\(path(ctx.codingPath)): \(ctx.debugDescription)"
        default:
            return "\(error)"
        }
    }

    private static func path(_ keys: [CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined().trimmingLeadingDot()
    }
}

/// `[mpris]`: whether the host's sessions are exported as an MPRIS2 player (default on) and
/// which (`export`), and whether the desktop's other MPRIS players are imported as sessions
/// (default on).
public struct MPRISConfig: Codable, Sendable, Equatable {
    public var enabled: Bool?
    /// `export`: `own` (default: the host's own session that is Now Playing, or was most
    /// recently; never an imported player) or `now-playing` (whatever is Now Playing).
    public var export: String?
    /// The values `export` takes.
    public static let exportValues = ["own", "now-playing"]
    /// `import`: every MPRIS player on the session bus becomes a session.
    public var importPlayers: Bool?
    /// `interrupt_imported`: pause an imported player over MPRIS when the model interrupts it.
    public var interruptImported: Bool?
    /// `ignore`: player names not to import (`vlc`, `firefox.instance_1_2`).
    public var ignore: [String]?

    static let schema: [ConfigKey] = [
        ConfigKey("enabled", .boolean),
        ConfigKey("export", .string),
        ConfigKey("import", .boolean),
        ConfigKey("interrupt_imported", .boolean),
        ConfigKey("ignore", .array(.string)),
    ]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case enabled
        case export
        case importPlayers = "import"
        case interruptImported = "interrupt_imported"
        case ignore
    }

    public init(enabled: Bool? = nil, export: String? = nil, importPlayers: Bool? = nil, interruptImported: Bool? = nil,
                ignore: [String]? = nil) {
        self.enabled = enabled
        self.export = export
        self.importPlayers = importPlayers
        self.interruptImported = interruptImported
        self.ignore = ignore
    }
}

/// A plugin executable the config names (`[[plugin]]`).
public struct PluginConfig: Codable, Sendable, Equatable {
    public var name: String?
    public var path: String
    public var args: [String]?

    static let schema: [ConfigKey] = [
        ConfigKey("name", .string),
        ConfigKey("path", .string),
        ConfigKey("args", .array(.string)),
    ]

    enum CodingKeys: String, CodingKey, CaseIterable { case name, path, args }

    public init(name: String? = nil, path: String, args: [String]? = nil) {
        self.name = name
        self.path = path
        self.args = args
    }
}

/// The built-in mpv plugin's settings (`[mpv]`).
public struct MPVConfig: Codable, Sendable, Equatable {
    /// URL schemes `mpv.open` accepts besides absolute file paths, `file`, `http` and `https`
    /// (e.g. `["rtmp", "ytdl"]`). mpv's own protocols (`av`, `lavfi`, `edl`…) can read and write
    /// any file the user can: add them only if every client may do that.
    public var urlSchemes: [String]?
    /// mpv sessions (each one mpv process) the plugin runs at most (`max_sessions`, default 16).
    public var maxSessions: Int?
    /// mpv's `--ao` (`ao`): an output or a comma-separated list tried in turn. Default: mpv's own
    /// probing order then `null` (`pipewire,pulse,alsa,jack,sdl,null`); `null` plays nowhere.
    /// `PLAYERHOST_MPV_AO` in the daemon's environment overrides it.
    public var audioOutput: String?
    /// mpv's `--audio-device` (`audio_device`, e.g. `pulse/alsa_output.usb-…`; `mpv
    /// --audio-device=help` lists them). Default: the output's own default device.
    public var audioDevice: String?
    /// mpv's `--vo` (`vo`; default `null`: no window). `PLAYERHOST_MPV_VO` overrides it.
    public var videoOutput: String?

    public init(urlSchemes: [String]? = nil, maxSessions: Int? = nil,
                audioOutput: String? = nil, audioDevice: String? = nil, videoOutput: String? = nil) {
        self.urlSchemes = urlSchemes
        self.maxSessions = maxSessions
        self.audioOutput = audioOutput
        self.audioDevice = audioDevice
        self.videoOutput = videoOutput
    }

    static let schema: [ConfigKey] = [
        ConfigKey("url_schemes", .array(.string)), ConfigKey("max_sessions", .integer),
        ConfigKey("ao", .string), ConfigKey("audio_device", .string), ConfigKey("vo", .string),
    ]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case urlSchemes = "url_schemes"
        case maxSessions = "max_sessions"
        case audioOutput = "ao"
        case audioDevice = "audio_device"
        case videoOutput = "vo"
    }
}

extension String {
    fileprivate func trimmingLeadingDot() -> String {
        hasPrefix(".") ? String(dropFirst()) : self
    }
}
