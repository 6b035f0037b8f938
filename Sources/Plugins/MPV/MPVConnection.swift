import Glibc
import PlayerHostPluginAPI

/// What mpv said went wrong with a command (its `error` string), or that the connection ended.
struct MPVError: Error, CustomStringConvertible, Equatable {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// A client of mpv's JSON IPC (`--input-ipc-server`) over one Unix socket, through the loop.
///
/// Every command carries a `request_id` and its reply is matched by it (the shared
/// `PendingRequests`): mpv answers one client's commands in order, but events and property
/// changes interleave with the replies, so order alone cannot pair them. Events (`{"event": …}`,
/// observed property changes included) go to `onEvent` in the order mpv sent them.
///
/// mpv answers a command at once (loading and seeking happen after the answer), so a command
/// left unanswered for `answerTimeoutMS` means mpv is hung (stopped, wedged): the connection then
/// closes and tells `onHung` — a hung mpv never holds its callers longer. Replies come only for
/// answers: once the connection closed (either side), what waited is dropped, and its owner (the
/// session machine) settles it as failed when it learns of the close. Each command's deadline is
/// a timer of the scheduler, armed only while it waits: nothing ticks when mpv is idle.
final class MPVConnection {
    typealias Reply = (Result<JSON, MPVError>) -> Void

    let loop: EventLoop
    private let stream: PipeStream
    /// mpv's lines are small, but `playlist` and `metadata` grow with the queue: be generous.
    private var framer = LineFramer(maxLine: 8 << 20)
    private let pending: PendingRequests<Int64, Result<JSON, MPVError>>
    private var nextID: Int64 = 1
    /// How long a command may wait for its answer.
    var answerTimeoutMS: UInt64 = 1000
    /// No answer within `answerTimeoutMS`: the connection has closed (`onClosed` not run); the
    /// owner should end the process.
    var onHung: (() -> Void)?
    /// An event by name with its whole object (`property-change` carries `name` and `data`).
    var onEvent: ((String, [String: JSON]) -> Void)?
    /// The connection ended from mpv's side (it quit or died).
    var onClosed: (() -> Void)?
    private(set) var isClosed = false

    private init(loop: EventLoop, stream: PipeStream) {
        self.loop = loop
        self.stream = stream
        pending = PendingRequests(scheduler: loop)
    }

    /// Connects to mpv's socket. mpv creates it a moment after it starts, so a refused or missing
    /// socket is retried with a doubling backoff (5 ms … 200 ms) until `withinMS` have passed;
    /// `shouldContinue` is asked before every attempt (the process may have died meanwhile).
    static func connect(
        loop: EventLoop, path: String, withinMS: UInt64, shouldContinue: @escaping () -> Bool,
        _ completion: @escaping (Result<MPVConnection, MPVError>) -> Void
    ) {
        let started = loop.nowNanoseconds
        var delay: UInt64 = 5
        guard let timer = loop.makeTimer() else {
            completion(.failure(MPVError("cannot arm a timer: the loop is closing")))
            return
        }
        func finish(_ result: Result<MPVConnection, MPVError>) {
            timer.close()
            completion(result)
        }
        func attempt() {
            guard shouldContinue() else { return finish(.failure(MPVError("mpv went away before its socket appeared"))) }
            let stream: PipeStream
            do {
                stream = try PipeStream(loop: loop)
            } catch {
                return finish(.failure(MPVError("cannot make a pipe: \(error)")))
            }
            do {
                try stream.connect(path: path) { error in
                    guard let error else {
                        let c = MPVConnection(loop: loop, stream: stream)
                        do { try c.start() } catch {
                            c.close()
                            return finish(.failure(MPVError("cannot read from mpv: \(error)")))
                        }
                        return finish(.success(c))
                    }
                    stream.close()
                    if (loop.nowNanoseconds - started) / 1_000_000 >= withinMS {
                        return finish(.failure(MPVError("mpv's socket \(path) did not accept within \(withinMS) ms: \(error.message)")))
                    }
                    timer.start(after: delay) { attempt() }
                    delay = min(delay * 2, 200)
                }
            } catch {
                stream.close()
                finish(.failure(MPVError("cannot connect to \(path): \(error.message)")))
            }
        }
        attempt()
    }

    private func start() throws(LoopError) {
        stream.onWriteFailure { [weak self] _ in self?.remoteClosed() }
        try stream.startReading(onRead: { [weak self] bytes in self?.received(bytes) },
                                onEnd: { [weak self] _ in self?.remoteClosed() })
    }

    /// Sends one command (`["seek", 10, "relative"]`); `reply` gets its `data` or mpv's error,
    /// unless the connection closes first.
    func command(_ arguments: [JSON], _ reply: Reply? = nil) {
        guard !isClosed else { return }
        let id = nextID
        nextID += 1
        // Every command gets an id, so a reply is never mistaken for another's.
        pending.add(id, timeoutMilliseconds: max(answerTimeoutMS, 1)) { [weak self] outcome in
            switch outcome {
            case .reply(let result): reply?(result)
            case .timedOut: self?.timedOut()
            case .cancelled: break
            }
        }
        var line = JSON.object(["command": .array(arguments), "request_id": .int(id)]).serialized()
        line.append(0x0A)
        stream.write(line)
    }

    /// A command is overdue: mpv is hung.
    private func timedOut() {
        guard !isClosed else { return }
        let hung = onHung
        close()
        hung?()
    }

    /// Closes from our side: pending commands are dropped, `onClosed` does not run. Idempotent.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        onClosed = nil
        onEvent = nil
        onHung = nil
        pending.cancelAll(reason: "the connection to mpv closed")
        stream.close()
    }

    private func remoteClosed() {
        guard !isClosed else { return }
        let closed = onClosed
        close()
        closed?()
    }

    private func received(_ bytes: UnsafeRawBufferPointer) {
        var lines: [JSON] = []
        do throws(LineFramer.LineTooLong) {
            try framer.feed(bytes) { line in
                if let value = try? JSONParser.parse(line) { lines.append(value) }
            }
        } catch {
            // Not mpv speaking: hang up rather than guess where the next message starts.
            return remoteClosed()
        }
        for line in lines {
            guard !isClosed, case .object(let o) = line else { continue }
            if let name = o["event"]?.stringValue {
                onEvent?(name, o)
            } else if let id = o["request_id"].flatMap({ $0.intValue }).map(Int64.init) {
                let status = o["error"]?.stringValue ?? "success"
                pending.complete(id, with: status == "success" ? .success(o["data"] ?? .null) : .failure(MPVError(status)))
            }
        }
    }
}
