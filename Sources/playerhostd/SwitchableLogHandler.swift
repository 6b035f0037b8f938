import Logging
import Synchronization

/// The daemon's log level, shared by every `Logger` the log handler makes, and changed while it
/// runs (a reload with another `log_level`). An atomic: a logger asks for the level on every
/// log call, from whichever thread logs.
final class LogLevelSwitch: Sendable {
    private let raw: Atomic<Int>

    init(_ level: Logger.Level) { raw = Atomic(Self.index(level)) }

    var level: Logger.Level {
        get { Logger.Level.allCases[raw.load(ordering: .relaxed)] }
        set { raw.store(Self.index(newValue), ordering: .relaxed) }
    }

    private static func index(_ level: Logger.Level) -> Int {
        Logger.Level.allCases.firstIndex(of: level) ?? 2
    }
}

/// swift-log's stderr handler, filtering by a `LogLevelSwitch` instead of a level fixed at
/// bootstrap, so a reload's new `log_level` reaches every logger already made. Setting one
/// logger's `logLevel` still changes only that logger (swift-log's value semantics).
struct SwitchableLogHandler: LogHandler {
    private var stream: StreamLogHandler
    private let shared: LogLevelSwitch
    private var ownLevel: Logger.Level?

    init(label: String, level: LogLevelSwitch) {
        stream = StreamLogHandler.standardError(label: label)
        // The stream prints what it is given: the level is decided here.
        stream.logLevel = .trace
        shared = level
    }

    var logLevel: Logger.Level {
        get { ownLevel ?? shared.level }
        set { ownLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { stream.metadata }
        set { stream.metadata = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { stream.metadataProvider }
        set { stream.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { stream[metadataKey: key] }
        set { stream[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) { stream.log(event: event) }
}
