import Glibc
import PlayerHost

/// `[mpris]` import settings.
public struct MPRISImportOptions: Sendable, Equatable {
    /// The session bus (`unix:path=…`).
    public var address: String
    /// Pause an imported player over MPRIS when the model interrupts it.
    public var interruptImported = true
    /// Player names not to import (`vlc`, `firefox.instance_1_2`, or the whole bus name).
    public var ignore: [String] = []
    /// At most this many imported players at once (each is an app connection).
    public var maxPlayers = 32

    public init(address: String, interruptImported: Bool = true, ignore: [String] = []) {
        self.address = address
        self.interruptImported = interruptImported
        self.ignore = ignore
    }
}

/// Every MPRIS2 player on the session bus becomes a session (issue 11): it watches
/// `NameOwnerChanged` for `org.mpris.MediaPlayer2.*` (and lists the names already there), and
/// for each player to import (not ours, not playerctld, not ignored, not a second name of one
/// process) makes an `ImportedPlayer`. It speaks only the public protocol; each player is an app
/// connection of its own (`PluginContext.openApp`), named after its `Identity`.
///
/// It uses a `DBusClient` of its own on the session bus, apart from the export's connection.
public final class MPRISImportPlugin: SessionPlugin {
    public let name = "mpris-import"
    public let options: MPRISImportOptions
    private var context: PluginContext?
    private var client: DBusClient?
    private var players: [String: ImportedPlayer] = [:]

    public init(options: MPRISImportOptions) { self.options = options }

    /// Imported players by bus name (for tests and stats).
    var playerNames: [String] { players.keys.sorted() }

    public func attach(_ c: PluginContext) {
        context = c
        let client = DBusClient(loop: c.loop, address: options.address)
        do {
            try client.start()
            client.onDisconnect = { [weak self] reason in
                self?.log("the session bus went away (\(reason)): imported players removed")
                self?.dropAll()
            }
            _ = try client.addMatch(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                    interface: "org.freedesktop.DBus", member: "NameOwnerChanged") { [weak self] s in
                guard s.arguments.count == 3, let name = s.arguments[0].stringValue,
                      let old = s.arguments[1].stringValue, let new = s.arguments[2].stringValue else { return }
                self?.ownerChanged(name, old: old, new: new)
            }
            _ = try client.addMatch(path: MPRISImportMapping.objectPath, interface: "org.freedesktop.DBus.Properties",
                                    member: "PropertiesChanged") { [weak self] s in
                guard let iface = s.arguments.first?.stringValue else { return }
                var changed: [String: DBusValue] = [:]
                if s.arguments.count > 1, case .dictionary(let d) = s.arguments[1] { changed = d }
                var invalidated: [String] = []
                if s.arguments.count > 2, case .strings(let l) = s.arguments[2] { invalidated = l }
                for p in self?.players(of: s.sender) ?? [] {
                    p.propertiesChanged(interface: iface, changed: changed, invalidated: invalidated)
                }
            }
            _ = try client.addMatch(path: MPRISImportMapping.objectPath, interface: MPRISImportMapping.playerInterface,
                                    member: "Seeked") { [weak self] s in
                guard let position = s.arguments.first?.int64Value else { return }
                for p in self?.players(of: s.sender) ?? [] { p.seeked(to: position) }
            }
        } catch {
            log("cannot watch the session bus at \(options.address): \(error.message)")
            client.close()
            return
        }
        self.client = client
        client.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                    member: "ListNames") { [weak self] result in
            guard let self, case .success(let args) = result, case .strings(let names)? = args.first else { return }
            for name in names.sorted() where MPRISImportMapping.isImportable(name, ignore: self.options.ignore) {
                self.client?.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                  member: "GetNameOwner", arguments: [.string(name)]) { [weak self] result in
                    guard case .success(let a) = result, let owner = a.first?.stringValue else { return }
                    self?.appeared(name, owner: owner)
                }
            }
        }
    }

    public func detach() {
        dropAll()
        client?.close()
        client = nil
        context = nil
    }

    private func players(of sender: String) -> [ImportedPlayer] {
        players.values.filter { $0.owner == sender }
    }

    private func ownerChanged(_ name: String, old: String, new: String) {
        guard MPRISImportMapping.isImportable(name, ignore: options.ignore) else { return }
        if !old.isEmpty, let p = players[name] {
            players[name] = nil
            p.close()
        }
        if !new.isEmpty { appeared(name, owner: new) }
    }

    private func appeared(_ name: String, owner: String) {
        guard let context, let client, players[name] == nil else { return }
        // One process, several names (a player that also claims a generic name): import it once.
        guard !players.values.contains(where: { $0.owner == owner }) else { return }
        guard players.count < options.maxPlayers else {
            return log("not importing \(name): already \(options.maxPlayers) imported players (the limit)")
        }
        let p = ImportedPlayer(busName: name, owner: owner, client: client, interruptImported: options.interruptImported) {
            [weak self] in self?.log($0)
        }
        players[name] = p
        p.start(host: context)
    }

    private func dropAll() {
        for p in players.values { p.close() }
        players.removeAll()
    }

    private func log(_ message: String) {
        let line = "plugin mpris-import: \(message)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
}
