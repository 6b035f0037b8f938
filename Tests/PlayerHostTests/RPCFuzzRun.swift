import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostRPC

/// The fuzz's length and seed: `FUZZ_SECONDS` (default `defaultSeconds`, at most 60 unless
/// `FUZZ_LONG` is set) and `FUZZ_SEED` (default a fixed seed, so CI replays the same requests);
/// `scripts/fuzz.sh SECONDS SEED` sets them for a longer run.
struct FuzzSettings {
    let seconds: Double
    let seed: UInt64

    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    init(defaultSeconds: Double) {
        seconds = min(Double(Self.environment("FUZZ_SECONDS") ?? "") ?? defaultSeconds,
                      Self.environment("FUZZ_LONG") == nil ? 60 : 86_400)
        seed = UInt64(Self.environment("FUZZ_SEED") ?? "") ?? 0x5EED_F0F0
    }

    var tag: String { "fuzz seed \(seed) (replay: scripts/fuzz.sh \(Int(seconds)) \(seed))" }
}

/// A fuzz client, whatever carries its bytes (`FuzzPeer`: a socket; `EmbeddedFuzzPeer`: an
/// embedded host's pipe): requests queued by id until their reply, replies kept.
protocol FuzzConnection: AnyObject {
    /// id → what was sent, until its reply arrives.
    var pending: [Int64: String] { get set }
    /// Replies for ids that were not pending (a second reply, or one never asked for).
    var unexpected: [String] { get set }
    var replies: [JSON] { get set }
    /// Lines queued for the host, not written yet.
    var outbox: [UInt8] { get set }
    /// The host hung up on this client.
    var hungUp: Bool { get }
}

extension FuzzConnection {
    func enqueue(_ bytes: [UInt8], id: Int64, what: String) {
        pending[id] = what
        outbox += bytes
    }

    /// One line from the host: a reply is matched to its request by id; a request (we were made
    /// a target or a provider) is answered, so nobody waits.
    func handle(line: ArraySlice<UInt8>) {
        let message = line.withUnsafeBytes { try? JSONParser.parse($0, maxDepth: 512) }
        guard let message else { return unexpected.append("unparsable line") }
        if message["method"] != nil {
            if let id = message["id"], !id.isNull {
                RPCEncoder.writeReply(id: id, .success(.bool(true)), into: &outbox)
            }
            return
        }
        guard case .int(let id)? = message["id"], pending.removeValue(forKey: id) != nil else {
            unexpected.append("reply for id \(message["id"].map { String(decoding: $0.serialized(), as: UTF8.self) } ?? "none")")
            return
        }
        replies.append(message)
    }
}

extension FuzzPeer: FuzzConnection {}

/// The fuzz's rounds over any transport: each round pipelines 1…24 requests per connection,
/// waits for the replies, and checks exactly one reply per request id, no hang-up of a reading
/// client, and another connection's `host.ping` answered; now and then a connection goes away
/// mid-stream and a new one takes its place.
struct FuzzDriver {
    var maker: FuzzRequestMaker
    let excluded: Set<String>
    let tag: String
    private(set) var sent = 0
    private(set) var rounds = 0
    private(set) var calls: [String: Int] = [:]
    private var lastLines: [String] = []
    private var nextID: Int64 = 1

    init(settings: FuzzSettings, methods: [FuzzMethod], excluded: Set<String>) {
        maker = FuzzRequestMaker(seed: settings.seed, methods: methods)
        self.excluded = excluded
        tag = settings.tag
    }

    /// Runs rounds for `seconds` of wall time, or until a check fails (then `diagnose` says
    /// what it can about the host, and the run stops). `pump` waits until the peers have their
    /// replies; `ping` asks another connection; `retire` ends a connection replaced mid-stream;
    /// `state` describes the host for a failed ping.
    mutating func run<Peer: FuzzConnection>(seconds: Double, peers: inout [Peer], makePeer: () throws -> Peer,
                                            retire: (Peer) -> Void, pump: ([Peer]) -> Void,
                                            ping: () throws -> JSON, state: () -> String, diagnose: () -> String) throws {
        let end = ControlClient.now() + seconds
        while ControlClient.now() < end {
            rounds += 1
            for peer in peers {
                for _ in 0..<(1 + maker.random.below(24)) {
                    let r = maker.line(id: nextID, excluding: excluded)
                    peer.enqueue(r.bytes, id: nextID, what: r.method)
                    calls[r.method, default: 0] += 1
                    lastLines.append(String(decoding: r.bytes.prefix(300), as: UTF8.self))
                    if lastLines.count > 8 { lastLines.removeFirst() }
                    nextID += 1
                    sent += 1
                }
            }
            pump(peers)
            for peer in peers {
                for reply in peer.replies { if let r = reply["result"] { maker.remember(r) } }
                peer.replies.removeAll()
            }
            let unanswered = peers.flatMap { $0.pending.map { "\($0.key) \($0.value)" } }
            let hungUp = peers.filter(\.hungUp).count
            let extra = peers.flatMap(\.unexpected)
            #expect(unanswered.isEmpty, "\(tag): \(unanswered.count) requests never answered: \(unanswered.prefix(10)); last sent: \(lastLines)")
            #expect(hungUp == 0, "\(tag): the host hung up on \(hungUp) reading clients; last sent: \(lastLines)")
            #expect(extra.isEmpty, "\(tag): unexpected replies: \(extra.prefix(10))")
            // Ping on its own connection, answered throughout.
            var pong: JSON?
            do { pong = try ping() } catch {
                Issue.record("\(tag): host.ping failed after \(sent) requests: \(error); \(state()); last sent: \(lastLines)")
            }
            #expect(pong == .string("pong"), "\(tag): ping answered \(String(describing: pong))")
            if !unanswered.isEmpty || hungUp > 0 || pong == nil || !extra.isEmpty {
                Issue.record("\(tag): \(diagnose())")
                break
            }
            if maker.random.chance(10) {
                let i = maker.random.below(peers.count)
                retire(peers[i])
                peers[i] = try makePeer()
            }
        }
    }
}

/// A fuzz client of an embedded host: sends request lines down its pipe, collects replies by id
/// and answers whatever the host asks it (as a command target or a method provider might be).
final class EmbeddedFuzzPeer: FuzzConnection {
    let client: EmbeddedClient
    var pending: [Int64: String] = [:]
    var unexpected: [String] = []
    var replies: [JSON] = []
    private(set) var hungUp = false
    var outbox: [UInt8] = []

    init(_ client: EmbeddedClient) { self.client = client }

    /// Sends what is queued (the host reads it at once); whether anything went.
    func flush() -> Bool {
        guard !outbox.isEmpty, !hungUp else { return false }
        let bytes = outbox
        outbox = []
        do { try client.send(bytes) } catch { hungUp = true }
        return true
    }

    /// Reads the lines already there (never moving the host's time); whether any came.
    func readAvailable() -> Bool {
        var any = false
        while client.hasBufferedInput {
            guard let line = try? client.readLine() else {
                hungUp = true
                break
            }
            any = true
            handle(line: line[...])
        }
        if client.rpc.isClosed && !client.isClosed { hungUp = true }
        return any
    }
}

/// Runs the embedded host until every peer has its replies: answers go out, the host runs its
/// turns, and while requests still wait its time moves to the next timer, up to
/// `hostMilliseconds` (as the socket fuzz waits 30 s of real time).
func pumpEmbeddedFuzzPeers(_ peers: [EmbeddedFuzzPeer], host: EmbeddedHost, hostMilliseconds budget: UInt64 = 30_000) {
    var waited: UInt64 = 0
    while true {
        var progressed = true
        while progressed {
            progressed = false
            for p in peers {
                if p.flush() { progressed = true }
            }
            host.runUntilIdle()
            for p in peers {
                if p.readAvailable() { progressed = true }
            }
        }
        if peers.allSatisfy({ $0.pending.isEmpty || $0.hungUp }) { return }
        guard waited < budget, let next = host.scheduler.nextDueInMilliseconds else { return }
        let step = max(1, min(next, budget - waited))
        host.advance(byMilliseconds: step)
        waited += step
    }
}
