import PlayerHostBase
import PlayerHostConfig
import PlayerHostServer

/// One entry of the daemon's `ComponentGroup`: a part around the core with one lifecycle —
/// `start`, `stop`, `apply(config)`, `stats` — run in list order (`HostDaemon.components`).
///
/// Shutdown has one more step, `willStop`: the group calls it on every started component, in
/// reverse start order, before it calls any `stop` (also in reverse). It is for what must happen
/// while everything still runs — the state file's exact positions, the clients' goodbye.
protocol HostComponent: AnyObject {
    /// For logs and a failed start's error.
    var name: String { get }
    /// Sets the part up. `group`: to ask for the daemon's shutdown (a signal, the lost lock).
    /// Throwing, it undoes what it set up itself; the group stops the ones before it.
    func start(_ group: ComponentGroup) throws(HostError)
    /// Shutdown's first pass (reverse start order), while every other part still runs.
    func willStop()
    /// Shutdown's second pass (reverse start order): closes what the part opened.
    func stop()
    /// Takes the part from `old` to `new`, naming in `changes` the keys it applied.
    func apply(_ new: HostConfig, old: HostConfig, changes: inout HostCore.Changes)
    /// Its entries in `host.stats`.
    var stats: [String: JSON] { get }
}

extension HostComponent {
    func willStop() {}
    func stop() {}
    func apply(_ new: HostConfig, old: HostConfig, changes: inout HostCore.Changes) {}
    var stats: [String: JSON] { [:] }
}

/// A component whose keys and stats are its part's (the server, artwork, state, MPRIS): `apply`
/// and `stats` go to `part`, once it is made.
protocol ConfiguredComponent: HostComponent {
    var part: ConfiguredPart? { get }
}

extension ConfiguredComponent {
    func apply(_ new: HostConfig, old: HostConfig, changes: inout HostCore.Changes) {
        part?.apply(new, old: old, changes: &changes)
    }

    var stats: [String: JSON] { part?.stats ?? [:] }
}

/// What a part takes from the configuration — when it starts (`HostDaemon.applyAtStart`) and on
/// every reload, through the same `apply` — and reports in `host.stats`: the control server,
/// the artwork resolver, the state store, the MPRIS export. Their components forward to it.
protocol ConfiguredPart: AnyObject {
    /// Takes the part from `old` to `new`, naming in `changes` the keys it applied.
    func apply(_ new: HostConfig, old: HostConfig, changes: inout HostCore.Changes)
    /// Its entries in `host.stats`.
    var stats: [String: JSON] { get }
}

extension ControlServer: ConfiguredPart {
    /// The fairness and output keys are the dispatcher's (the core applied them): open
    /// connections read them as they go, and a lower output budget cuts the slowest off now.
    func apply(_ new: HostConfig, old: HostConfig, changes: inout HostCore.Changes) {
        enforceOutputBudget()
    }

    var stats: [String: JSON] {
        ["connectionsAccepted": .int(Int64(totalAccepted)), "connectionsRefused": .int(Int64(totalRefused)),
         "server": statsJSON]
    }
}

extension ArtworkResolver: ConfiguredPart {
    func apply(_ new: HostConfig, old: HostConfig, changes: inout HostCore.Changes) {
        for (key, differs) in [("artwork_timeout_ms", old.artworkTimeoutMilliseconds != new.artworkTimeoutMilliseconds),
                               ("artwork_max_kb", old.artworkMaxKB != new.artworkMaxKB),
                               ("artwork_max_megapixels", old.artworkMaxMegapixels != new.artworkMaxMegapixels),
                               ("artwork_cache_mb", old.artworkCacheMB != new.artworkCacheMB)] where differs {
            changes.changed.append(key)
        }
        limits = HostDaemon.artworkLimits(new)
        cache.limitBytes = (new.artworkCacheMB ?? 64) << 20
    }

    /// In `artwork.status`, not `host.stats`.
    var stats: [String: JSON] { [:] }
}

extension StateStore: ConfiguredPart {
    func apply(_ new: HostConfig, old: HostConfig, changes: inout HostCore.Changes) {
        if old.maxStateFileMB != new.maxStateFileMB { changes.changed.append("max_state_file_mb") }
        maxBytes = new.maxStateFileBytes
    }

    var stats: [String: JSON] { ["state": statsJSON] }
}

extension MPRISBridge: ConfiguredPart {
    func apply(_ new: HostConfig, old: HostConfig, changes: inout HostCore.Changes) {
        guard old.mpris?.export != new.mpris?.export else { return }
        configure(export: new.mpris?.export)
        changes.changed.append("mpris.export")
    }

    var stats: [String: JSON] { ["mpris": statsJSON] }
}
