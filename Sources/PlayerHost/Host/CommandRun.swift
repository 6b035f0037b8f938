import Logging
import PlayerHostBase
import PlayerHostModel
import PlayerHostRPC

/// One command waiting on its out-of-process targets: all are asked at once, one deadline bounds
/// the whole command, and answers go back to the model in target order (the result is the first
/// non-success in that order, whoever answered first).
///
/// The deadline is kept by each target connection's request-with-timeout
/// (`RPCConnection.request(…, timeoutMilliseconds:)`): every target is given the time left until
/// the command's one deadline, so they all time out at that instant (as `commandFailed`) and a
/// late answer is dropped by the connection.
final class CommandRun {
    private weak var service: NowPlayingService?
    private var dispatch: CommandDispatch
    private let promise: RPCPromise?
    /// Answers by target token (a late or missing one is `commandFailed`).
    private var answers: [Int: CommandStatus] = [:]
    /// Targets asked (`command.handle` sent), by token.
    private var asked: Set<Int> = []
    /// When the whole command's time is up, on the service's clock (ns).
    private var deadline: UInt64 = 0
    private var asking = false
    private var done = false

    init(service: NowPlayingService, dispatch: CommandDispatch, promise: RPCPromise?) {
        self.service = service
        self.dispatch = dispatch
        self.promise = promise
    }

    func start() {
        guard let service else { return }
        let timeout = service.commandTimeoutMilliseconds
        let (span, o1) = timeout.multipliedReportingOverflow(by: 1_000_000)
        let (sum, o2) = service.now.nanoseconds.addingReportingOverflow(span)
        deadline = o1 || o2 ? .max : sum
        // The run keeps itself alive through the requests' completions (each runs once: an
        // answer, the deadline, or the target's connection gone) until it is done.
        asking = true
        for call in dispatch.pendingExternalCalls { ask(call, service) }
        asking = false
        advance()
    }

    /// Milliseconds left until the command's deadline (rounded up; 0 once it passed).
    private func timeLeft(_ service: NowPlayingService) -> UInt64 {
        let now = service.now.nanoseconds
        guard deadline > now else { return 0 }
        let left = deadline - now
        return left / 1_000_000 + (left % 1_000_000 == 0 ? 0 : 1)
    }

    private func ask(_ call: ExternalInvocation, _ service: NowPlayingService) {
        guard let rpc = service.connection(call.client) else {
            answers[call.token] = .commandFailed
            return
        }
        let token = call.token
        let command = dispatch.command
        asked.insert(token)
        rpc.request(method: "command.handle", params: call.toJSON(), timeoutMilliseconds: timeLeft(service)) { [self] result in
            guard !done, answers[token] == nil else { return }
            switch result {
            case .success(let value):
                answers[token] = CommandStatus(json: value["status"] ?? value) ?? .commandFailed
            case .failure(let error):
                if error.code == RPCErrorCode.timeout.rawValue {
                    self.service?.logger.warning("command \(command.rawValue) target \(token) timed out")
                }
                answers[token] = .commandFailed
            }
            if !asking { advance() }
        }
    }

    /// Gives the model every answer it can take now, in target order.
    private func advance() {
        guard !done, let service else { return }
        while let call = dispatch.awaiting {
            if answers[call.token] == nil {
                // A target the run did not know of (cannot happen: all were asked up front).
                guard !asked.contains(call.token) else { return }
                ask(call, service)
                if answers[call.token] == nil { return }
            }
            switch service.resume(dispatch, status: answers[call.token] ?? .commandFailed) {
            case .failure(let error):
                finish(.failure(error))
                return
            case .success(.finished(let outcome)):
                finish(.success(outcome.toJSON()))
                return
            case .success(.awaiting(let next)):
                dispatch = next
            }
        }
    }

    private func finish(_ result: Result<JSON, RPCError>) {
        done = true
        promise?.complete(result)
    }
}
