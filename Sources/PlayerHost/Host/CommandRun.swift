import Logging
import PlayerHostBase
import PlayerHostLoop
import PlayerHostModel
import PlayerHostRPC

/// One command waiting on its out-of-process targets: all are asked at once, one timer bounds
/// the whole command, and answers go back to the model in target order (the result is the first
/// non-success in that order, whoever answered first).
final class CommandRun {
    private weak var service: NowPlayingService?
    private var dispatch: CommandDispatch
    private let promise: RPCPromise?
    /// Answers by target token (a late or missing one is `commandFailed`).
    private var answers: [Int: CommandStatus] = [:]
    /// Outgoing `command.handle` requests by token, to withdraw on timeout.
    private var asked: [Int: (rpc: RPCConnection, id: Int64)] = [:]
    private var timer: HostTimer?
    private var asking = false
    private var done = false

    init(service: NowPlayingService, dispatch: CommandDispatch, promise: RPCPromise?) {
        self.service = service
        self.dispatch = dispatch
        self.promise = promise
    }

    func start() {
        guard let service else { return }
        // The run keeps itself alive through the callbacks below until it is done.
        asking = true
        for call in dispatch.pendingExternalCalls { ask(call, service) }
        asking = false
        let timeout = service.commandTimeoutMilliseconds
        timer = service.scheduler.makeTimer()
        timer?.start(after: timeout) { [self] in
            guard !done else { return }
            for (token, request) in asked where answers[token] == nil {
                service.logger.warning("command \(dispatch.command.rawValue) target \(token) timed out")
                answers[token] = .commandFailed
                request.rpc.failOutgoing(id: request.id, RPCError(.timeout, "no answer within \(timeout) ms"))
            }
            advance()
        }
        advance()
    }

    private func ask(_ call: ExternalInvocation, _ service: NowPlayingService) {
        guard let rpc = service.connection(call.client) else {
            answers[call.token] = .commandFailed
            return
        }
        let token = call.token
        let id = rpc.request(method: "command.handle", params: call.toJSON()) { [self] result in
            guard !done, answers[token] == nil else { return }
            switch result {
            case .success(let value): answers[token] = CommandStatus(json: value["status"] ?? value) ?? .commandFailed
            case .failure: answers[token] = .commandFailed
            }
            if !asking { advance() }
        }
        asked[token] = (rpc, id)
    }

    /// Gives the model every answer it can take now, in target order.
    private func advance() {
        guard !done, let service else { return }
        while let call = dispatch.awaiting {
            if answers[call.token] == nil {
                // A target the run did not know of (cannot happen: all were asked up front).
                guard asked[call.token] == nil else { return }
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
        timer?.close()
        timer = nil
        promise?.complete(result)
    }
}
