import PlayerHostPluginAPI

/// Queue edits on mpv itself (`mpv.open`'s modes and the queue verbs): planned by
/// `MPVQueuePlan` against mpv's playlist as mpv says it is at that moment (the mirror can be an
/// event behind), answered once mpv took them and the host has the new queue.
extension MPVController {
    /// Where an edit's answer waits for: mpv's acknowledgement only, or also the playback
    /// restart of the item it started (so the answer, and the report before it, show that item).
    enum EditWait { case acknowledged, restart }

    /// Puts `urls` in the queue as `mode` says; `completion` gets nil once mpv took them (and,
    /// for `replace`, once the first plays and the host knows it).
    func load(_ urls: [String], mode: MPVQueuePlan.LoadMode, _ completion: @escaping (MPVError?) -> Void) {
        edit(wait: mode == .replace ? .restart : .acknowledged, { count, position in
            .success(MPVQueuePlan.load(urls, mode: mode, count: count, position: position))
        }, { result in
            switch result {
            case .success: completion(nil)
            case .failure(.mpv(let e)): completion(e)
            case .failure(.outOfRange(let e)): completion(MPVError(e.message))
            }
        })
    }

    /// Why an edit was not done: an index outside the queue (nothing sent), or mpv's refusal.
    enum EditFailure: Error {
        case outOfRange(MPVQueuePlan.OutOfRange)
        case mpv(MPVError)
    }

    /// Reads mpv's `playlist-count` and `playlist-pos`, sends what `plan` makes of them, and
    /// answers once mpv acknowledged them all (and, with `.restart`, playback restarted) and
    /// the host has the report. Starts mpv if it is not running.
    func edit(wait: EditWait, _ plan: @escaping (_ count: Int, _ position: Int) -> Result<[[JSON]], MPVQueuePlan.OutOfRange>,
              _ completion: @escaping (Result<Void, EditFailure>) -> Void) {
        whenReady({ [weak self] in
            guard let self, let c = self.connection else { return completion(.failure(.mpv(MPVError("mpv is not running")))) }
            // mpv's numbers, bounded before any arithmetic on them (a playlist is far smaller).
            func bounded(_ v: Int?, _ fallback: Int) -> Int { min(max(v ?? fallback, -1), Int(Int32.max)) }
            var count = 0
            c.get("playlist-count") { result in
                count = max(0, bounded((try? result.get())?.intValue, 0))
            }
            // mpv answers in order: by this answer the count is in.
            c.get("playlist-pos") { [weak self] result in
                guard let self else { return completion(.failure(.mpv(MPVError("the session's mpv was stopped")))) }
                guard self.connection === c, !c.isClosed else { return completion(.failure(.mpv(MPVError("mpv went away")))) }
                let position = bounded((try? result.get())?.intValue, -1)
                switch plan(count, position) {
                case .failure(let e): completion(.failure(.outOfRange(e)))
                case .success(let commands): self.run(commands, on: c, wait: wait, completion)
                }
            }
        }, otherwise: { completion(.failure(.mpv($0))) })
    }

    private func run(_ commands: [[JSON]], on c: MPVConnection, wait: EditWait,
                     _ completion: @escaping (Result<Void, EditFailure>) -> Void) {
        guard !commands.isEmpty else { return syncNow { completion(.success(())) } }
        var firstError: MPVError?
        for (i, command) in commands.enumerated() {
            let last = i == commands.count - 1
            c.command(command) { [weak self] result in
                if case .failure(let e) = result, firstError == nil {
                    let what = command.first?.stringValue ?? "?"
                    let arg = command.count > 1 ? " \(command[1].stringValue ?? command[1].jsonString)" : ""
                    firstError = MPVError("\(what)\(arg): \(e.message)")
                }
                guard last, let self else { return }
                if let e = firstError { return self.syncNow { completion(.failure(.mpv(e))) } }
                if wait == .restart {
                    self.afterRestart(timeoutMS: 5000) { self.syncNow { completion(.success(())) } }
                } else {
                    self.syncNow { completion(.success(())) }
                }
            }
        }
    }
}
