import PlayerHostBase
import PlayerHostModel
import PlayerHostRPC

/// The topics events are published under (`events.subscribe` takes their names, plus `*` for all).
public enum EventTopic: String, Sendable, Hashable, CaseIterable {
    /// The gated Now Playing value (coalesced, deduplicated, placeholder-guarded).
    case nowPlaying
    /// Apps and sessions coming and going, active and eligibility changes, the slot changing hands.
    case sessions
    case commands
    case audio
    case info
    case players
    /// What each track's artwork resolution came to (`artworkSettled`), failures included.
    case artwork

    /// The topic of a model event: the one event → topic table (the model knows no topics).
    public init(_ event: ModelEvent) {
        switch event {
        case .appRegistered, .appRemoved, .sessionCreated, .sessionClosed, .sessionOwnerChanged,
            .activeChanged, .canBecomeActiveChanged:
            self = .sessions
        case .nowPlayingChanged: self = .nowPlaying
        case .infoChanged: self = .info
        case .commandChanged, .commandHandled: self = .commands
        case .audioChanged, .interruptionBegan, .interruptionEnded: self = .audio
        case .playerChanged: self = .players
        }
    }
}

extension ModelEvent {
    /// The `events.subscribe` topic it belongs to, by name (`EventTopic`'s table: the only one).
    public var topic: String { EventTopic(self).rawValue }
}

/// One published event, as every sink receives it: the typed value, and its wire form rendered
/// at most once however many sinks and subscribers want it.
///
/// It is a class so that all sinks share one instance, and with it the one rendering: the
/// JSON-RPC subscribers queue the same immutable bytes to every connection.
public final class PublishedEvent {
    /// What was published.
    public enum Payload: Sendable, Hashable {
        /// A model event, as the model produced it (not gated: key moments are never delayed).
        case model(ModelEvent)
        /// The gated Now Playing value; nil when the slot is empty. Its `elapsed` holds at its
        /// `timestamp` (readers infer `elapsed + rate × (now − timestamp)`).
        case nowPlaying(NowPlayingSnapshot?)
        /// An artwork resolution settled: the event's params (`ArtworkResolver`).
        case artwork(JSON)
    }

    public let payload: Payload
    /// The topic it is published under.
    public let topic: EventTopic
    /// The client owning the session of an app-facing event (`activeChanged`,
    /// `canBecomeActiveChanged`, interruptions): it gets the event even unsubscribed.
    public let owner: ClientID?

    public init(_ payload: Payload, owner: ClientID? = nil) {
        self.payload = payload
        self.owner = owner
        switch payload {
        case .model(let e): topic = EventTopic(e)
        case .nowPlaying: topic = .nowPlaying
        case .artwork: topic = .artwork
        }
    }

    /// The `params` of the `event` notification: `{topic, type, …}`.
    public var params: JSON {
        switch payload {
        case .model(let e): return e.toJSON()
        case .nowPlaying(let value):
            return ["topic": "nowPlaying", "type": "nowPlaying", "nowPlaying": value?.toJSON() ?? .null]
        case .artwork(let params): return params
        }
    }

    /// The whole JSON-RPC notification line (`{"jsonrpc":"2.0","method":"event","params":…}\n`),
    /// rendered on first use and then shared.
    public var notificationLine: [UInt8] {
        if let rendered { return rendered }
        var out: [UInt8] = []
        RPCEncoder.notification(method: "event", params: params, into: &out)
        rendered = out
        return out
    }

    /// Whether the line was rendered (no one asked for bytes: it never is).
    public var isRendered: Bool { rendered != nil }

    private var rendered: [UInt8]?
}

/// A consumer of published events: the JSON-RPC subscribers, and next the MPRIS bridge, the
/// state store and the artwork resolver.
///
/// Sinks are registered with `Publisher.add(_:topics:)` and called on the loop thread, in
/// publication order, for the topics they asked for. A sink must not block and must not publish
/// from inside `receive` (a publication under way queues what is published meanwhile, but a sink
/// should turn its I/O into work for a later loop turn). Sinks that need the Now Playing value at
/// any other time (an MPRIS `Get`) read it from a `NowPlayingReading`, which the `Publisher` is.
public protocol EventSink: AnyObject {
    /// One published event. Use `event.payload` for the typed value; `event.notificationLine`
    /// for the JSON-RPC wire bytes (rendered once, shared by every sink).
    func receive(_ event: PublishedEvent)
}

/// Where a sink reads the Now Playing value outside a publication.
public protocol NowPlayingReading: AnyObject {
    /// The Now Playing value as shown now: guarded (a placeholder never shows over the playing
    /// item's real value) with `elapsed` inferred for now; nil when the slot is empty.
    func currentNowPlaying() -> NowPlayingSnapshot?
    /// The last value sent to the sinks (it may lag `currentNowPlaying()` by up to one
    /// coalescing window); nil when none was sent or the slot was empty.
    var publishedNowPlaying: NowPlayingSnapshot? { get }
}

/// A sink that shows a slot of its own beside the global Now Playing one: the MPRIS export's
/// session (`[mpris] export = "own"` keeps showing the host's own session while an imported
/// player holds Now Playing). The `Publisher` gates that slot like Now Playing, with a gate of
/// its own: after every publication it asks for the slot's value, offers it, and hands the sink
/// only what the gate lets through (first change at once, the rest coalesced, identical values
/// dropped, placeholders guarded). Register with `Publisher.addSlot(_:)`.
public protocol SlotSink: AnyObject {
    /// The value the slot would show in `model` now (nil: empty), anchored like the Now Playing
    /// value (`elapsed` as of its `timestamp`). Called on the loop thread after each publication.
    func slotCandidate(in model: NowPlayingModel) -> NowPlayingSnapshot?
    /// What the slot's gate published: the sink shows this, and nothing else.
    func slotPublished(_ value: NowPlayingSnapshot?)
}
