import Testing
@testable import PlayerHost

/// The web remote's pure layers (issue 25): pairing codes, devices, routes, cookies, the page's
/// state and requests — no sockets.
@Suite struct RemoteProtocolTests {
    let random: [UInt8] = [0, 1, 2, 3, 4, 5, 6, 7]

    @Test func aCodeIsSingleUse() {
        var codes = PairingCodes(validSeconds: 120)
        let code = codes.issue(deviceName: "phone", now: 1000, random: random)
        #expect(code.count == 8)
        #expect(codes.redeem(code, from: "1.2.3.4", now: 2000) == .paired(deviceName: "phone"))
        #expect(codes.redeem(code, from: "1.2.3.4", now: 2001) == .wrong)
    }

    @Test func aCodeExpires() {
        var codes = PairingCodes(validSeconds: 120)
        let code = codes.issue(deviceName: "phone", now: 1000, random: random)
        #expect(codes.redeem(code, from: "a", now: 1000 + 120_000) == .wrong)
    }

    @Test func codesHaveAtLeastAMillionPossibilities() {
        // 32 symbols, 8 of them: 2^40 ≈ 1.1 × 10^12; and a byte maps to a symbol without bias.
        #expect(PairingCodes.alphabet.count == 32 && Set(PairingCodes.alphabet).count == 32)
        #expect(256 % PairingCodes.alphabet.count == 0)
        var codes = PairingCodes()
        let a = codes.issue(deviceName: "x", now: 0, random: [0, 0, 0, 0, 0, 0, 0, 0])
        let b = codes.issue(deviceName: "x", now: 0, random: [0, 0, 0, 0, 0, 0, 0, 1])
        #expect(a != b)
    }

    @Test func fiveWrongTriesAMinuteThenRefusedEvenTheRightCode() {
        var codes = PairingCodes()
        let code = codes.issue(deviceName: "phone", now: 0, random: random)
        for i in 0..<5 { #expect(codes.redeem("WRONG\(i)AA", from: "10.0.0.9", now: UInt64(i)) == .wrong) }
        #expect(codes.redeem(code, from: "10.0.0.9", now: 10) == .tooManyTries)
        // Another address is not held back, and the code was not spent by the refused try…
        #expect(codes.redeem("WRONGXXX", from: "10.0.0.8", now: 11) == .wrong)
        // …and a minute later the first address may try again.
        #expect(codes.redeem(code, from: "10.0.0.9", now: 60_010) == .paired(deviceName: "phone"))
    }

    @Test func devicesAreNamedApartAndRevoked() {
        var store = DeviceStore()
        let hash = String(repeating: "a", count: 64)
        let added = store.add(.init(name: store.freeName("phone"), tokenHash: hash, pairedAt: 1))
        #expect(added)
        #expect(store.freeName("phone") == "phone-2")
        #expect(store.freeName("a\u{1B}[2Jb") == "a[2Jb")  // no terminal escapes in `remote devices`
        #expect(store.device(tokenHash: hash)?.name == "phone")
        let reread = DeviceStore(json: store.json)
        #expect(reread == store)
        #expect(!store.json.jsonString.contains("token\":"))  // only the hash is kept
        #expect(store.revoke(name: "phone") == hash)
        #expect(store.device(tokenHash: hash) == nil)
        #expect(store.revoke(name: "phone") == nil)
    }

    /// A `lastUsedAt` from the file that `now - before` would overflow on marks a use, no trap.
    @Test func anAbsurdLastUseInTheFileIsAUseNotATrap() {
        let hash = String(repeating: "b", count: 64)
        var store = DeviceStore(json: ["devices": [["name": "tab", "tokenSHA256": .string(hash), "pairedAt": 1,
                                                     "lastUsedAt": .int(Int64.min)]]])
        let first = store.used(tokenHash: hash, at: 1_800_000_000)
        let soonAfter = store.used(tokenHash: hash, at: 1_800_000_010)
        #expect(first && !soonAfter)
    }

    @Test(arguments: ["/static/../remote-devices.json", "/static/..", "/static/.hidden", "/static/a/b", "//etc/passwd",
                      "/static/%2e%2e%2fx", "/static/", "/../static/app.js", "/art/../../x", "/art/ABC", "/pair/a-b"])
    func noPathReachesOutsideThePage(path: String) {
        #expect(RemoteRoute(path: path) == .notFound)
    }

    @Test func routes() {
        #expect(RemoteRoute(path: "/") == .page)
        #expect(RemoteRoute(path: "/static/app.js") == .asset("app.js"))
        #expect(RemoteRoute(path: "/pair/ABCD2345") == .pair(code: "ABCD2345"))
        #expect(RemoteRoute(path: "/art/00ff") == .art(id: "00ff"))
        #expect(RemoteRoute(path: "/ws") == .socket)
    }

    @Test func theTokenCookie() {
        let token = String(repeating: "0123456789abcdef", count: 4)
        #expect(RemoteCookie.token(in: "a=b; ph_remote=\(token); c=d") == token)
        #expect(RemoteCookie.token(in: "ph_remote=short") == nil)
        #expect(RemoteCookie.token(in: nil) == nil)
        let set = RemoteCookie.setCookie(token: token, secure: false)
        #expect(set.contains("HttpOnly") && set.contains("SameSite=Strict") && !set.contains("Secure"))
        #expect(RemoteCookie.setCookie(token: token, secure: true).hasSuffix("; Secure"))
    }

    static let playing: JSON = [
        "session": "main", "playbackState": "playing", "timestamp": 100.0, "volume": 0.5,
        "info": ["title": "Magnificent", "artist": "U2", "album": "No Line", "duration": 324.0, "elapsed": 10.0, "rate": 1.0,
                 "artwork": ["image": ["url": "file:///c/ab.o.10x10.99.1f.jpg"]]],
    ]

    @Test func stateCarriesAnchorsNotTicks() {
        let s = RemoteState(nowPlaying: Self.playing, sessions: [["id": "main", "kind": "main", "isActive": true, "secret": 1]])
        let np = s.body["nowPlaying"]
        #expect(np?["title"] == "Magnificent" && np?["elapsed"] == 10.0 && np?["rate"] == 1.0 && np?["timestamp"] == 100.0)
        #expect(s.body["sessions"]?.arrayValue?.first?["secret"] == nil)
        // The same anchors later are the same state: nothing to send while playback is steady.
        #expect(RemoteState(nowPlaying: Self.playing, sessions: [["id": "main", "kind": "main", "isActive": true]]) == s)
        #expect(s.message(now: 200).contains("\"now\":200"))
    }

    @Test func aNewCoverHasANewID() throws {
        let a = RemoteState(nowPlaying: Self.playing, sessions: nil)
        var other = Self.playing.objectValue ?? [:]
        var info = other["info"]?.objectValue ?? [:]
        info["artwork"] = ["image": ["url": "file:///c/ab.o.10x10.120.2e.jpg"]]
        other["info"] = .object(info)
        let b = RemoteState(nowPlaying: .object(other), sessions: nil)
        let idA = try #require(a.body["nowPlaying"]?["art"]?.stringValue)
        let idB = try #require(b.body["nowPlaying"]?["art"]?.stringValue)
        #expect(idA != idB && a.artwork[idA] == "main" && b.artwork[idB] == "main")
        // No cover: no id (the page then shows none — never the previous one).
        info["artwork"] = nil
        other["info"] = .object(info)
        #expect(RemoteState(nowPlaying: .object(other), sessions: nil).body["nowPlaying"]?["art"] == nil)
    }

    @Test func pageRequestsBecomeHostCalls() throws {
        let pause = try PageRequest.parse(Array(#"{"id":3,"type":"command","session":"main","command":"pause"}"#.utf8)).get()
        #expect(pause.id == 3 && pause.method == "command.send" && pause.params == ["session": "main", "command": "pause"])
        let seek = try PageRequest.parse(Array(#"{"id":4,"type":"command","command":"changePlaybackPosition","position":12.5}"#.utf8)).get()
        #expect(seek.params["position"] == 12.5)
        let promote = try PageRequest.parse(Array(#"{"id":5,"type":"promote","session":"pip"}"#.utf8)).get()
        #expect(promote.method == "session.becomeActiveIfPossible")
        for bad in [#"{"id":1,"type":"command","command":"session.close"}"#, #"{"type":"command","command":"pause"}"#,
                    #"{"id":1,"type":"call","method":"host.shutdown"}"#, "[]", "nope",
                    #"{"id":1,"type":"command","command":"changePlaybackRate","rate":"fast"}"#] {
            guard case .failure = PageRequest.parse(Array(bad.utf8)) else {
                Issue.record("accepted \(bad)")
                continue
            }
        }
    }

    @Test func aRefusedCommandShowsTheHostsReason() {
        let refused = PageRequest.reply(id: 2, .success(["status": "noSuchContent"]))
        #expect(refused.contains("\"ok\":false") && refused.contains("noSuchContent"))
        let error = PageRequest.reply(id: 2, .failure(RPCError(.commandDisabled, "nextTrack is disabled on main")))
        #expect(error.contains("nextTrack is disabled on main"))
        let notEligible = PageRequest.reply(id: 3, .success(["active": false, "reason": "interrupted"]))
        #expect(notEligible.contains("interrupted"))
        #expect(PageRequest.reply(id: 4, .success(["status": "success"])).contains("\"ok\":true"))
    }

    @Test func listenAddresses() {
        #expect(RemoteConfig.parse(listen: "127.0.0.1:8470")! == ("127.0.0.1", 8470))
        #expect(RemoteConfig.parse(listen: "localhost:8470") == nil)
        #expect(RemoteConfig.parse(listen: "127.0.0.1:99999") == nil)
        #expect(RemoteConfig.parse(listen: "127.0.0.1") == nil)
    }

    /// `[remote]` in the config file: parsed, printed back, and checked (`--check-config`).
    @Test func theRemoteTable() throws {
        let c = try HostConfig.parse("[remote]\nlisten = \"127.0.0.1:8470\"\npairing_code_s = 60\nmax_connections = 8\nmax_connections_per_address = 3\n")
        #expect(c.remote?.maxConnectionsPerAddress == 3)
        #expect(c.remote?.endpoint?.address == "127.0.0.1" && c.remote?.endpoint?.port == 8470)
        #expect(c.remote?.pairingCodeSeconds == 60 && c.remote?.usesTLS == false)
        #expect(try HostConfig.parse(c.tomlString()) == c)
        #expect(try HostConfig.parse("[remote]\nlisten = \"0.0.0.0:8470\"\n").remote?.usesTLS == true)
        for (text, says) in [("[remote]\nlisten = \"phone:80\"\n", "remote.listen must be ADDRESS:PORT"),
                             ("[remote]\nlisten = \"127.0.0.1:1\"\nmax_connections = 0\n", "remote.max_connections must be 1…10000"),
                             ("[remote]\nlisten = \"127.0.0.1:1\"\nmax_connections_per_address = 0\n", "remote.max_connections_per_address must be 1…10000"),
                             ("[remote]\nlisten = \"127.0.0.1:1\"\nmax_connections_per_address = \"4\"\n", "max_connections_per_address"),
                             ("[remote]\nlisten = \"127.0.0.1:1\"\ncertificate = \"c.pem\"\n", "remote.certificate and remote.key go together"),
                             ("[remote]\nlisten = \"127.0.0.1:1\"\nport = 3\n", "remote.port: unknown key")] {
            do {
                _ = try HostConfig.parse(text, source: "x.toml")
                Issue.record("accepted \(text)")
            } catch {
                #expect("\(error)".contains(says), "\(error)")
            }
        }
    }
}
