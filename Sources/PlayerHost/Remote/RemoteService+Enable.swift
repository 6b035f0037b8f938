import PlayerHostBase
import PlayerHostConfig
import PlayerHostPlugin
import PlayerHostRPC

/// `remote.enable {lan, port}` and `remote.disable` (`npctl remote enable [--lan] [--port N]`,
/// `npctl remote disable`): the daemon writes `remote.toml` beside the config (`RemoteOverlay`;
/// the user's file and its comments stay untouched), reloads the configuration, and replies once
/// the remote listens — or has stopped, or failed — with `remote.status`. No restart: the remote
/// is attached even when off. One write and reload at a time, in the order asked, so each reply
/// describes its own request's outcome.
extension RemoteService {
    /// The port `enable` takes without `--port` and without a listen address to keep.
    public static let defaultPort = 8470
    /// `remote.enable` / `remote.disable` calls waiting for the one under way.
    public static let maxQueuedSwitches = 16

    func provideSwitchMethods(_ context: PluginContext) {
        context.provide("remote.enable", summary: "Turn the web remote on: writes remote.toml beside the config and applies it (params: lan, port).") {
            [weak self] params, reply in
            guard let self else { return reply(.failure(RPCError(.shuttingDown, "the remote is stopping"))) }
            switch self.enableOverlay(lan: params["lan"] == true, port: params["port"]) {
            case .success(let overlay): self.requestSwitch(overlay, reply)
            case .failure(let e): reply(.failure(e))
            }
        }
        context.provide("remote.disable", summary: "Turn the web remote off: writes enabled = false to remote.toml beside the config and applies it.") {
            [weak self] _, reply in
            guard let self else { return reply(.failure(RPCError(.shuttingDown, "the remote is stopping"))) }
            self.requestSwitch(RemoteOverlay(enabled: false), reply)
        }
    }

    /// The overlay `enable` writes: `0.0.0.0` with `lan` (TLS), else `127.0.0.1`; the port
    /// given, else the one in effect, else `defaultPort`.
    func enableOverlay(lan: Bool, port: JSON?) -> Result<RemoteOverlay, RPCError> {
        let chosen: Int
        if let port, port != .null {
            guard let p = port.intValue, (0...65_535).contains(p) else {
                return .failure(RPCError(.invalidArgument, "remote.enable: port must be 0…65535"))
            }
            chosen = p
        } else {
            chosen = config.endpoint?.port ?? Self.defaultPort
        }
        return .success(RemoteOverlay(listen: "\(lan ? "0.0.0.0" : "127.0.0.1"):\(chosen)"))
    }

    func requestSwitch(_ overlay: RemoteOverlay, _ reply: @escaping (Result<JSON, RPCError>) -> Void) {
        guard switches.count < Self.maxQueuedSwitches else {
            return reply(.failure(.limitExceeded("remote.enable and remote.disable calls waiting", limit: Self.maxQueuedSwitches)))
        }
        switches.append((overlay, reply))
        if !isSwitching { nextSwitch() }
    }

    /// Writes the first waiting overlay off the loop, reloads, waits for the remote to settle,
    /// replies, then takes the next.
    private func nextSwitch() {
        guard let context, !context.isClosed, !switches.isEmpty else {
            isSwitching = false
            return
        }
        isSwitching = true
        let (overlay, reply) = switches.removeFirst()
        let configPath = self.configPath
        let file = RemoteOverlay.path(besideConfig: configPath)
        RemoteFiles.offLoop(context.loop, { overlay.write(besideConfig: configPath) }) { [weak self] written in
            guard let self else { return reply(.failure(RPCError(.shuttingDown, "the remote is stopping"))) }
            let failure: String? = switch written {
            case .none: "the thread pool did not run the write"
            case .some(let error): error
            }
            if let failure {
                self.fail("remote.toml: \(failure)")
                reply(.failure(RPCError(.invalidState, "cannot turn the remote \(overlay.enabled == false ? "off" : "on"): \(failure)",
                                        data: ["file": .string(file)])))
                return self.nextSwitch()
            }
            self.context?.call("host.reload") { [weak self] result in
                guard let self else { return reply(.failure(RPCError(.shuttingDown, "the remote is stopping"))) }
                if case .failure(let e) = result {
                    reply(.failure(RPCError(.configInvalid, "\(file) is written, but the configuration does not load, so it applies once it does (npctl daemon reload): \(e.message)",
                                            data: ["file": .string(file)])))
                    return self.nextSwitch()
                }
                // On, unchanged, but not listening (its port was taken): this enable tries again.
                if self.config.listen != nil, self.server == nil, !self.isSettling { self.load() }
                self.whenSettled { [weak self] in
                    guard let self else { return reply(.failure(RPCError(.shuttingDown, "the remote is stopping"))) }
                    reply(.success(self.statusJSON))
                    self.nextSwitch()
                }
            }
        }
    }

    /// Runs `body` once no load or stop is under way (at once when none is).
    func whenSettled(_ body: @escaping () -> Void) {
        guard isSettling else { return body() }
        onSettled.append(body)
    }

    /// A load or stop ended (listening, failed, or stopped).
    func settled() {
        isSettling = false
        let waiting = onSettled
        onSettled = []
        for body in waiting { body() }
    }
}
