import PlayerHostBase
import PlayerHostConfig
import PlayerHostServer

/// One of the daemon's I/O parts around the core (the control server, the artwork resolver, the
/// state store, the MPRIS export): it takes its keys from the configuration when it starts and on
/// every reload through `apply` — the one path — and reports its `host.stats` entries. The daemon
/// holds them in start order (`HostDaemon.components`).
protocol HostComponent: AnyObject {
    /// Takes the part from `old` to `new`, naming in `changes` the keys it applied.
    func apply(_ new: HostConfig, old: HostConfig, changes: inout HostCore.Changes)
    /// Its entries in `host.stats`.
    var stats: [String: JSON] { get }
}

extension ControlServer: HostComponent {
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

extension ArtworkResolver: HostComponent {
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

extension StateStore: HostComponent {
    func apply(_ new: HostConfig, old: HostConfig, changes: inout HostCore.Changes) {
        if old.maxStateFileMB != new.maxStateFileMB { changes.changed.append("max_state_file_mb") }
        maxBytes = new.maxStateFileBytes
    }

    var stats: [String: JSON] { ["state": statsJSON] }
}

extension MPRISBridge: HostComponent {
    func apply(_ new: HostConfig, old: HostConfig, changes: inout HostCore.Changes) {
        guard old.mpris?.export != new.mpris?.export else { return }
        configure(export: new.mpris?.export)
        changes.changed.append("mpris.export")
    }

    var stats: [String: JSON] { ["mpris": statsJSON] }
}
