import Glibc
import PlayerHostPluginAPI

/// `[mpris]` import settings.
public struct MPRISImportOptions: Sendable, Equatable {
    /// The session bus (`unix:path=…`).
    public var address: String
    /// Pause an imported player over MPRIS when the model interrupts it.
    public var interruptImported = true
    /// Player names not to import (`vlc`, `firefox.instance_1_2`, or the whole bus name).
    public var ignore: [String] = []
    /// At most this many imported players at once (each is an app connection); the others wait
    /// for a slot (see `ImportSlots`).
    public var maxPlayers = 32
    /// At most this many players waiting for a slot (the longest-waiting silent one is dropped
    /// for a newcomer; a dropped name comes back when it next claims its name).
    public var maxWaiting = 256

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
    /// Who holds a slot and who waits (by bus name).
    private var slots: ImportSlots
    /// Waiting players' owners (unique names), to read their signals.
    private var waitingOwners: [String: String] = [:]
    /// The waiting list's "full" was logged (once until it has room again: no line per churn).
    private var loggedWaitingFull = false

    public init(options: MPRISImportOptions) {
        self.options = options
        slots = ImportSlots(capacity: options.maxPlayers, waitingCapacity: options.maxWaiting)
    }

    /// Imported players by bus name (for tests and stats).
    var playerNames: [String] { players.keys.sorted() }
    /// Players waiting for a slot, by bus name.
    var waitingNames: [String] { waitingOwners.keys.sorted() }

    public func attach(_ c: PluginContext) {
        context = c
        // The bus is a socket on the daemon's loop: an embedded host (no loop) imports nothing.
        guard let loop = c.loop else { return log("no event loop for the session bus (an embedded host): importing nothing") }
        c.provide("mprisImport.openUri", summary: "Open a URI in an imported MPRIS player (its OpenUri, as playerctl's open): {session, uri} → {session}, once the player answered.") {
            [weak self] params, reply in
            guard let self else { return reply(.failure(RPCError(.shuttingDown, "the mpris-import plugin is detached"))) }
            self.openUri(params, reply)
        }
        let client = DBusClient(loop: loop, address: options.address)
        do {
            try client.start()
            client.onDisconnect = { [weak self] reason in
                self?.log("the session bus went away (\(reason)): imported players removed")
                self?.dropAll()
            }
            _ = try client.addMatch(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                    interface: "org.freedesktop.DBus", member: "NameOwnerChanged") { [weak self] s in
                // sd-bus does not check a well-known sender locally: any peer can unicast a
                // forged NameOwnerChanged here (to import or drop players at will). The bus
                // stamps the real sender, and only the driver's is "org.freedesktop.DBus".
                // DBusClient checks it for a match on the driver; checked here as well, since
                // this is where a forgery would do harm.
                guard MPRISImportMapping.isFromBusDriver(s.sender), s.arguments.count == 3, let name = s.arguments[0].stringValue,
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
                self?.propertiesChanged(from: s.sender, interface: iface, changed: changed, invalidated: invalidated)
            }
            _ = try client.addMatch(path: MPRISImportMapping.objectPath, interface: MPRISImportMapping.playerInterface,
                                    member: "Seeked") { [weak self] s in
                // An out-of-range position (INT64_MIN from a player without track ids) is not known.
                let position = MPRISImportMapping.microseconds(s.arguments.first)
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

    /// `mprisImport.openUri {session, uri}`: the URI bounded like the export's `OpenUri`
    /// (`MPRISRequest.maxURIBytes`) before it goes anywhere.
    private func openUri(_ p: [String: JSON], _ reply: @escaping (Result<JSON, RPCError>) -> Void) {
        for key in p.keys where key != "session" && key != "uri" {
            return reply(.failure(.invalidParams("mprisImport.openUri has no parameter '\(key)'", param: key)))
        }
        guard let session = p["session"]?.stringValue else {
            return reply(.failure(.invalidParams("session: a string is required", param: "session")))
        }
        guard let uri = p["uri"]?.stringValue, !uri.isEmpty else {
            return reply(.failure(.invalidParams("uri: a non-empty string is required", param: "uri")))
        }
        guard uri.utf8.count <= MPRISRequest.maxURIBytes else {
            return reply(.failure(RPCError(.limitExceeded, "uri: \(uri.utf8.count) bytes, over the \(MPRISRequest.maxURIBytes)-byte limit",
                                           data: ["limit": .int(Int64(MPRISRequest.maxURIBytes))])))
        }
        guard let player = players.values.first(where: { $0.sessionID == session }) else {
            return reply(.failure(RPCError(.sessionNotFound, "no imported MPRIS player with session '\(session)'",
                                           data: ["session": .string(session)])))
        }
        player.openUri(uri, reply)
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

    private func propertiesChanged(from sender: String, interface: String, changed: [String: DBusValue], invalidated: [String]) {
        for p in players(of: sender) {
            let wasPlaying = p.isPlaying
            p.propertiesChanged(interface: interface, changed: changed, invalidated: invalidated)
            // Silent from the moment it stops playing, not from when it started.
            if wasPlaying || p.isPlaying { slots.heard(p.busName) }
        }
        guard interface == MPRISImportMapping.playerInterface, let status = changed["PlaybackStatus"]?.stringValue else { return }
        for (name, owner) in waitingOwners where owner == sender {
            waitingStatus(name, playing: status == "Playing")
        }
    }

    private func ownerChanged(_ name: String, old: String, new: String) {
        guard MPRISImportMapping.isImportable(name, ignore: options.ignore) else { return }
        if !old.isEmpty { left(name) }
        if !new.isEmpty { appeared(name, owner: new) }
    }

    private func appeared(_ name: String, owner: String) {
        guard context != nil, client != nil, players[name] == nil, waitingOwners[name] == nil else { return }
        // One process, several names (a player that also claims a generic name): import it once.
        guard !players.values.contains(where: { $0.owner == owner }), !waitingOwners.values.contains(owner) else { return }
        switch slots.arrive(name) {
        case .imported:
            startPlayer(name, owner: owner)
        case .waiting(let dropped):
            if let dropped {
                waitingOwners[dropped] = nil
                if !loggedWaitingFull {
                    loggedWaitingFull = true
                    log("\(options.maxWaiting) players wait for a slot (the limit): the longest-waiting silent one is dropped for each newcomer")
                }
            }
            wait(name, owner: owner)
        case .refused:
            guard !loggedWaitingFull else { return }
            loggedWaitingFull = true
            log("not importing \(name): \(options.maxPlayers) imported and \(options.maxWaiting) playing players waiting (the limits)")
        }
    }

    /// On the waiting list: one `Get` of its status (a player that already plays takes a slot
    /// now); later `PropertiesChanged` signals say when it starts.
    private func wait(_ name: String, owner: String) {
        // Logged when the list starts, not for each of a churning flood.
        if waitingOwners.isEmpty { log("\(name) waits for a slot: \(options.maxPlayers) players imported (the limit)") }
        waitingOwners[name] = owner
        client?.call(name, path: MPRISImportMapping.objectPath, interface: "org.freedesktop.DBus.Properties",
                     member: "Get", arguments: [.string(MPRISImportMapping.playerInterface), .string("PlaybackStatus")]) {
            [weak self] result in
            guard let self, self.waitingOwners[name] == owner, case .success(let a) = result,
                  a.first?.stringValue == "Playing" else { return }
            self.waitingStatus(name, playing: true)
        }
    }

    private func waitingStatus(_ name: String, playing: Bool) {
        guard let owner = waitingOwners[name] else { return }
        let evicted = slots.waitingStatus(name, playing: playing) { self.players[$0]?.isPlaying ?? false }
        guard slotTaken(name) else { return }
        waitingOwners[name] = nil
        if let evicted, let p = players.removeValue(forKey: evicted) {
            log("\(name) plays: it takes the slot of \(evicted), the longest silent")
            p.close()
            waitingOwners[evicted] = p.owner
        }
        startPlayer(name, owner: owner)
    }

    private func slotTaken(_ name: String) -> Bool { slots.imported[name] != nil }

    private func left(_ name: String) {
        waitingOwners[name] = nil
        if waitingOwners.count < options.maxWaiting { loggedWaitingFull = false }
        if let p = players.removeValue(forKey: name) { p.close() }
        guard let next = slots.leave(name), let owner = waitingOwners.removeValue(forKey: next) else { return }
        startPlayer(next, owner: owner)
    }

    private func startPlayer(_ name: String, owner: String) {
        guard let context, let client else { return }
        let p = ImportedPlayer(busName: name, owner: owner, client: client, interruptImported: options.interruptImported) {
            [weak self] in self?.log($0)
        }
        players[name] = p
        p.start(host: context)
    }

    private func dropAll() {
        for p in players.values { p.close() }
        players.removeAll()
        waitingOwners.removeAll()
        slots.removeAll()
    }

    private func log(_ message: String) {
        let line = "plugin mpris-import: \(message)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
}
