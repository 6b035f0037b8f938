import CSDBus
import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostLoop

/// `DBusClient.addMatch(sender: "org.freedesktop.DBus")`: sd-bus does not check a well-known
/// sender locally, so a peer's forged NameOwnerChanged, unicast to the client, reached the
/// handler (issue 22's security follow-up). Only the bus driver's own signals count now.
@Suite(.serialized) struct DBusClientSenderTests {
    @Test func aForgedBusDriverSignalNeverReachesTheHandler() throws {
        let f = try MPRISFixture(startDaemon: false)
        defer { f.close() }
        let loop = try makeLoop()
        let client = DBusClient(loop: loop, address: f.address)
        defer { client.close() }
        try client.start()
        // Wakes `run(.once)` now and then, so each wait below ends at its deadline.
        let tick = try Timer(loop: loop)
        defer { tick.close() }
        tick.isReferenced = false
        tick.start(after: 100, repeat: 100) {}
        let names = Box<[String]>([])
        _ = try client.addMatch(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                member: "NameOwnerChanged") { s in
            if let n = s.arguments.first?.stringValue { names.value.append(n) }
        }
        // A round trip after the AddMatch: the bus has the match by the time GetId is answered.
        let ready = Box(false)
        client.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetId") { _ in
            ready.value = true
        }
        let deadline = DBusTestPeer.now() + 10
        while !ready.value, DBusTestPeer.now() < deadline { loop.run(.once) }
        try #require(ready.value, "the client is connected")
        var unique: UnsafePointer<CChar>?
        try #require(client.connection.bus.map { sd_bus_get_unique_name($0, &unique) } ?? -1 >= 0)
        let me = String(cString: try #require(unique))

        // The forgery, unicast from a peer; then the peer claims a name, and the bus's real
        // NameOwnerChanged for it comes after the forgery (one sender, in order).
        let peer = try DBusTestPeer(address: f.address)
        defer { peer.close() }
        var forged: OpaquePointer?
        #expect(sd_bus_message_new_signal(peer.bus, &forged, "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged") >= 0)
        if let forged {
            _ = sd_bus_message_set_destination(forged, me)
            _ = appendString(forged, "s", "org.example.Forged")
            _ = appendString(forged, "s", "")
            _ = appendString(forged, "s", ":1.9999")
            peer.sendSignal(forged)
        }
        #expect(try peer.requestName("org.example.Real") == 1)
        while !names.value.contains("org.example.Real"), DBusTestPeer.now() < deadline + 10 { loop.run(.once) }
        #expect(names.value.contains("org.example.Real"), "the real signal arrives: \(names.value)")
        #expect(!names.value.contains("org.example.Forged"), "the forgery is dropped: \(names.value)")
    }
}
