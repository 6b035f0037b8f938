import CSDBus
import Glibc
@testable import PlayerHost

/// A bus peer for tests, on sd-bus directly (the daemon's own `DBusConnection` is a server and
/// runs on the loop; this one is a plain blocking client): synchronous calls for the few steps a
/// test takes, and pipelined asynchronous calls with a reply tally for the fuzz's throughput.
final class DBusTestPeer {
    /// What came back for the pipelined calls so far.
    final class Tally {
        var pending = 0
        var returned = 0
        /// Error replies by name (a timeout or a NoReply means the daemon did not answer).
        var errors: [String: Int] = [:]
        /// What the calls that got no answer were.
        var unansweredCalls: [String] = []
    }

    private(set) var bus: OpaquePointer?
    let tally = Tally()

    init(address: String) throws {
        var b: OpaquePointer?
        var r = sd_bus_new(&b)
        guard r >= 0, let b else { throw Self.failure(r, "sd_bus_new") }
        r = sd_bus_set_address(b, address)
        if r >= 0 { r = sd_bus_set_bus_client(b, 1) }
        if r >= 0 { r = sd_bus_start(b) }
        guard r >= 0 else {
            sd_bus_unref(b)
            throw Self.failure(r, "connecting to \(address)")
        }
        bus = b
    }

    deinit { close() }

    /// Whether the bus still has us (a peer whose message breaks the bus's limits is dropped).
    var isOpen: Bool { bus.map { sd_bus_is_open($0) > 0 } ?? false }

    /// Closes the connection (the peer's names go with it).
    func close() {
        guard let b = bus else { return }
        bus = nil
        sd_bus_flush_close_unref(b)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func failure(_ r: Int32, _ what: String) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(-r)))")
    }

    /// A new method call (the caller appends its arguments and sends it).
    func methodCall(_ destination: String?, _ path: String, _ interface: String?, _ member: String) throws -> OpaquePointer {
        var m: OpaquePointer?
        let r = sd_bus_message_new_method_call(bus, &m, destination, path, interface, member)
        guard r >= 0, let m else { throw Self.failure(r, "new call \(member)") }
        return m
    }

    /// How the peer waits for its socket: (descriptor, POLLIN/POLLOUT wanted, at most seconds).
    /// Nil: `sd_bus_wait`. A test with a daemon sets one that runs the harness's loop meanwhile,
    /// so the daemon's stderr is read: a daemon blocked on a full stderr pipe answers nothing.
    var waiter: ((Int32, Int32, Double) -> Void)?

    /// Calls and waits (`timeout` µs) for the reply: its values, or the error name and message.
    func call(_ destination: String?, _ path: String, _ interface: String?, _ member: String,
              timeout: UInt64 = 10_000_000, _ append: (OpaquePointer) -> Int32 = { _ in 0 }) throws -> Result<[DBusAny], Failure> {
        let m = try methodCall(destination, path, interface, member)
        defer { sd_bus_message_unref(m) }
        let a = append(m)
        guard a >= 0 else { throw Self.failure(a, "appending to \(member)") }
        final class Answer { var result: Result<[DBusAny], Failure>? }
        let answer = Answer()
        let box = Unmanaged.passRetained(answer).toOpaque()
        let r = sd_bus_call_async(bus, nil, m, { reply, ctx, _ in
            guard let ctx else { return 0 }
            let answer = Unmanaged<Answer>.fromOpaque(ctx).takeRetainedValue()
            guard let reply else { answer.result = .failure(Failure(description: "no reply")); return 0 }
            if sd_bus_message_is_method_error(reply, nil) != 0, let e = sd_bus_message_get_error(reply)?.pointee {
                let name = e.name.map { String(cString: $0) } ?? "?"
                answer.result = .failure(Failure(description: "\(name): \(e.message.map { String(cString: $0) } ?? "")"))
            } else {
                answer.result = .success(DBusTestPeer.readAll(reply))
            }
            return 0
        }, box, timeout)
        guard r >= 0 else {
            Unmanaged<Answer>.fromOpaque(box).release()
            return .failure(Self.failure(r, "calling \(member)"))
        }
        let deadline = Self.now() + Double(timeout) / 1e6 + 1
        while answer.result == nil, Self.now() < deadline {
            guard step(until: deadline) else { break }
        }
        return answer.result ?? .failure(Failure(description: "no reply to \(member) (connection \(isOpen ? "open" : "closed"))"))
    }

    /// `org.freedesktop.DBus.Properties.Get`, unwrapped.
    func property(_ destination: String, _ interface: String, _ name: String) throws -> DBusAny? {
        let r = try call(destination, "/org/mpris/MediaPlayer2", "org.freedesktop.DBus.Properties", "Get") { m in
            var r = interface.withCString { sd_bus_message_append_basic(m, CChar(UInt8(ascii: "s")), $0) }
            if r >= 0 { r = name.withCString { sd_bus_message_append_basic(m, CChar(UInt8(ascii: "s")), $0) } }
            return r
        }
        guard case .success(let values) = r else { return nil }
        return values.first?.unwrapped
    }

    /// Asks the bus for `name` (no queueing): 1 primary owner, 3 exists, 2 in queue.
    func requestName(_ name: String) throws -> UInt64? {
        let r = try call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName") { m in
            var flags: UInt32 = 4  // DBUS_NAME_FLAG_DO_NOT_QUEUE
            var r = name.withCString { sd_bus_message_append_basic(m, CChar(UInt8(ascii: "s")), $0) }
            if r >= 0 { r = sd_bus_message_append_basic(m, CChar(UInt8(ascii: "u")), &flags) }
            return r
        }
        guard case .success(let v) = r, case .uint(let answer)? = v.first else { return nil }
        return answer
    }

    /// The unique name owning `name`, if any.
    func owner(of name: String) throws -> String? {
        let r = try call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner") { m in
            name.withCString { sd_bus_message_append_basic(m, CChar(UInt8(ascii: "s")), $0) }
        }
        guard case .success(let v) = r else { return nil }
        return v.first?.string
    }

    // MARK: - Pipelined

    /// Sends `m` (and unrefs it). With `expectReply`, the reply goes to the tally; without, the
    /// call is sent with NO_REPLY_EXPECTED and nothing comes back.
    @discardableResult
    func send(_ m: OpaquePointer, expectReply: Bool, what: String = "", timeout: UInt64 = 15_000_000) -> Bool {
        defer { sd_bus_message_unref(m) }
        guard expectReply else {
            _ = sd_bus_message_set_expect_reply(m, 0)
            return sd_bus_send(bus, m, nil) >= 0
        }
        let call = Unmanaged.passRetained(PendingCall(tally: tally, what: what)).toOpaque()
        let r = sd_bus_call_async(bus, nil, m, { reply, ctx, _ in
            guard let ctx else { return 0 }
            let call = Unmanaged<PendingCall>.fromOpaque(ctx).takeRetainedValue()
            let tally = call.tally
            tally.pending -= 1
            if let reply, sd_bus_message_is_method_error(reply, nil) != 0 {
                let name = sd_bus_message_get_error(reply)?.pointee.name.map { String(cString: $0) } ?? "?"
                tally.errors[name, default: 0] += 1
                if name.hasSuffix(".NoReply") || name.hasSuffix(".Timeout") { tally.unansweredCalls.append(call.what) }
            } else {
                tally.returned += 1
            }
            return 0
        }, call, timeout)
        if r >= 0 { tally.pending += 1 } else { Unmanaged<PendingCall>.fromOpaque(call).release() }
        return r >= 0
    }

    /// One pipelined call, for its reply callback.
    final class PendingCall {
        let tally: Tally
        let what: String
        init(tally: Tally, what: String) {
            self.tally = tally
            self.what = what
        }
    }

    /// Sends a signal built by the caller (`m` from `sd_bus_message_new_signal`), unrefs it.
    func sendSignal(_ m: OpaquePointer) {
        _ = sd_bus_send(bus, m, nil)
        sd_bus_message_unref(m)
    }

    /// Processes incoming messages until every pipelined call is answered or `deadline` (a
    /// monotonic second) passes. Returns whether all were answered.
    func drain(until deadline: Double) -> Bool {
        while tally.pending > 0 {
            guard step(until: deadline) else { return false }
        }
        return true
    }

    /// Processes what is there, else waits for the socket (at most until `deadline`). False when
    /// the connection failed or the deadline passed.
    private func step(until deadline: Double) -> Bool {
        guard let bus else { return false }
        let r = sd_bus_process(bus, nil)
        if r < 0 { return false }
        if r > 0 { return true }
        let left = deadline - Self.now()
        if left <= 0 { return false }
        if let waiter {
            waiter(sd_bus_get_fd(bus), sd_bus_get_events(bus), min(left, 0.5))
        } else {
            _ = sd_bus_wait(bus, UInt64(min(left, 0.5) * 1_000_000))
        }
        return true
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    // MARK: - Reading

    /// Every value left in `m`.
    static func readAll(_ m: OpaquePointer) -> [DBusAny] {
        var out: [DBusAny] = []
        while let v = read(m) { out.append(v) }
        return out
    }

    /// The next value of `m`, containers included; nil at the end of the current container.
    static func read(_ m: OpaquePointer) -> DBusAny? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard sd_bus_message_peek_type(m, &type, &contents) > 0 else { return nil }
        func basic<T>(_ zero: T) -> T? {
            var v = zero
            return sd_bus_message_read_basic(m, type, &v) > 0 ? v : nil
        }
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "a"), UInt8(ascii: "v"), UInt8(ascii: "r"), UInt8(ascii: "e"):
            guard sd_bus_message_enter_container(m, type, contents) > 0 else { return nil }
            let inner = readAll(m)
            _ = sd_bus_message_exit_container(m)
            switch UInt8(bitPattern: type) {
            case UInt8(ascii: "a"): return .array(inner)
            case UInt8(ascii: "v"): return inner.first.map { .variant($0) } ?? .structure([])
            case UInt8(ascii: "e") where inner.count == 2: return .entry(inner[0], inner[1])
            default: return .structure(inner)
            }
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            var p: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(m, type, &p) > 0, let p else { return nil }
            return .string(String(cString: p))
        case UInt8(ascii: "x"): return basic(Int64(0)).map { .int($0) }
        case UInt8(ascii: "i"): return basic(Int32(0)).map { .int(Int64($0)) }
        case UInt8(ascii: "n"): return basic(Int16(0)).map { .int(Int64($0)) }
        case UInt8(ascii: "t"): return basic(UInt64(0)).map { .uint($0) }
        case UInt8(ascii: "u"): return basic(UInt32(0)).map { .uint(UInt64($0)) }
        case UInt8(ascii: "q"): return basic(UInt16(0)).map { .uint(UInt64($0)) }
        case UInt8(ascii: "y"): return basic(UInt8(0)).map { .uint(UInt64($0)) }
        case UInt8(ascii: "b"): return basic(Int32(0)).map { .bool($0 != 0) }
        case UInt8(ascii: "d"): return basic(Double(0)).map { .double($0) }
        default:
            return sd_bus_message_skip(m, nil) >= 0 ? .structure([]) : nil
        }
    }
}

/// Appends a string of D-Bus type `type` ("s", "o" or "g").
func appendString(_ m: OpaquePointer, _ type: Character, _ s: String) -> Int32 {
    s.withCString { sd_bus_message_append_basic(m, CChar(bitPattern: type.asciiValue ?? 0), $0) }
}

/// Appends an `x`.
func appendInt64(_ m: OpaquePointer, _ v: Int64) -> Int32 {
    var v = v
    return sd_bus_message_append_basic(m, CChar(UInt8(ascii: "x")), &v)
}
