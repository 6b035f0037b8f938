import ArgumentParser
import CQRencode
import Glibc
import PlayerHostBase
import PlayerHostClient
import PlayerHostRPC

/// `npctl remote …`: the web remote (issue 25) — turn it on or off, pair a phone, list and
/// revoke devices, status.
struct RemoteVerb: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote",
        abstract: "The web remote: turn it on or off, pair a phone, list or revoke paired devices, show its state.",
        discussion: """
            `npctl remote enable --lan` turns it on for the LAN (TLS, a self-signed certificate \
            unless the config names one); without --lan it listens on 127.0.0.1. The daemon \
            writes that to remote.toml beside the config (your file stays untouched; remote.toml \
            wins over its [remote] listen) and applies it at once. `npctl remote pair` prints a \
            one-time URL (valid 120 s, one use) and its QR code: opening it on the phone pairs it.

            Examples:
              npctl remote enable --lan
              npctl remote pair --name phone
              npctl remote devices
              npctl remote revoke phone
            """,
        subcommands: [RemoteEnable.self, RemoteDisable.self, RemotePair.self, RemoteDevices.self, RemoteRevoke.self,
                      RemoteStatus.self],
        defaultSubcommand: RemoteStatus.self)

    /// Calls a `remote.*` method, saying what to do when the remote is not configured.
    static func call(_ global: GlobalOptions, _ method: String, _ params: [String: JSON] = [:]) throws -> JSON {
        let link = try HostLink(global)
        do throws(ClientError) {
            return try link.client.call(method, params)
        } catch {
            if case .rpc(let e) = error, e.code == RPCErrorCode.methodNotFound.rawValue {
                // A daemon from before `remote.enable`: the remote is attached only when configured.
                throw Failure("the web remote is off: add [remote] listen = \"127.0.0.1:8470\" to the config and restart the daemon")
            }
            throw HostLink.failure(error)
        }
    }
}

/// `npctl remote pair [--name PHONE]`.
struct RemotePair: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair", abstract: "Print a one-time pairing URL and its QR code; opening it pairs the device.")
    @OptionGroup var global: GlobalOptions
    @Option(help: ArgumentHelp("The device's name (for devices and revoke).", valueName: "name")) var name: String?
    @Flag(help: "Do not draw the QR code.") var noQR = false

    func run() throws {
        try reporting {
            var params: [String: JSON] = [:]
            if let name { params["name"] = .string(name) }
            let r = try RemoteVerb.call(global, "remote.pair", params)
            if global.json { return print(r.jsonString) }
            let url = r["url"]?.stringValue ?? "?"
            if !noQR, let qr = QRText.render(url) { print(qr) }
            print(url)
            let seconds = r["expiresInSeconds"]?.intValue ?? 120
            if let fp = r["fingerprint"]?.stringValue { print("certificate SHA-256 \(fp)") }
            print("valid \(seconds) s, one use: open it on the device to pair it")
        }
    }
}

/// `npctl remote devices`.
struct RemoteDevices: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "devices", abstract: "The paired devices, with when each was last used.")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try reporting {
            let r = try RemoteVerb.call(global, "remote.devices")
            if global.json { return print(r.jsonString) }
            let rows = (r.arrayValue ?? []).map { d -> [String] in
                [d["name"]?.stringValue ?? "?", Self.date(d["pairedAt"]?.intValue), Self.date(d["lastUsedAt"]?.intValue),
                 d["connected"] == true ? "connected" : ""]
            }
            guard !rows.isEmpty else { return print("no paired devices (npctl remote pair)") }
            for line in Table.render([["NAME", "PAIRED", "LAST USED", ""]] + rows) { print(line) }
        }
    }

    /// A Unix time as `2026-11-26 17:30` (local time).
    static func date(_ t: Int?) -> String {
        guard let t else { return "never" }
        var time = time_t(t)
        var tm = tm()
        localtime_r(&time, &tm)
        var buf = [CChar](repeating: 0, count: 32)
        let n = strftime(&buf, buf.count, "%Y-%m-%d %H:%M", &tm)
        return String(cBuffer: buf.prefix(n))
    }
}

/// `npctl remote revoke NAME`.
struct RemoteRevoke: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Unpair a device; its open page is cut off at once.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("The device's name (npctl remote devices).", valueName: "name")) var name: String

    func run() throws {
        try reporting {
            let r = try RemoteVerb.call(global, "remote.revoke", ["name": .string(name)])
            if global.json { return print(r.jsonString) }
            print("revoked \(name)" + ((r["closedConnections"]?.intValue ?? 0) > 0 ? "; its page was disconnected" : ""))
        }
    }
}

/// `npctl remote status` (the default).
struct RemoteStatus: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Where the remote listens, its devices and pages.")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try reporting {
            let r = try RemoteVerb.call(global, "remote.status")
            if global.json { return print(r.jsonString) }
            print(Self.line(r))
        }
    }

    /// One line: `listening on http://127.0.0.1:8470 (from …/remote.toml) · 2 devices · 1 page open`.
    static func line(_ r: JSON) -> String {
        var parts: [String] = []
        let source = r["source"]?.stringValue.map { " (from \($0))" } ?? ""
        if r["enabled"] == false { return "off\(source) · npctl remote enable [--lan] turns it on" }
        if r["listening"] == true, let url = r["url"]?.stringValue {
            parts.append("listening on \(url)\(source)")
        } else {
            parts.append("not listening\(source)")
        }
        parts.append("\(r["devices"]?.intValue ?? 0) device(s)")
        parts.append("\(r["pages"]?.intValue ?? 0) page(s) open")
        if let e = r["lastError"]?.stringValue { parts.append("last error: \(e)") }
        return parts.joined(separator: " · ")
    }
}

/// A QR code drawn with half blocks (two modules a character), with its quiet zone, from
/// libqrencode.
enum QRText {
    static func render(_ text: String) -> String? {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard let data = code.pointee.data, width > 0, width < 200 else { return nil }
        let quiet = 2
        func dark(_ x: Int, _ y: Int) -> Bool {
            guard x >= 0, y >= 0, x < width, y < width else { return false }
            return data[y * width + x] & 1 != 0
        }
        var lines: [String] = []
        var y = -quiet
        while y < width + quiet {
            var line = ""
            for x in -quiet..<(width + quiet) {
                // Light on dark terminals and dark on light ones alike: draw the light modules.
                switch (!dark(x, y), !dark(x, y + 1)) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append(line)
            y += 2
        }
        return lines.joined(separator: "\n")
    }
}

/// `npctl remote enable [--lan] [--port N]`.
struct RemoteEnable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable",
        abstract: "Turn the web remote on, at once: on 127.0.0.1, or with --lan on every address, with TLS.",
        discussion: "The daemon writes remote.toml beside its config file (the config itself is not touched) and applies it without a restart.")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Listen on the LAN (0.0.0.0), always with TLS: the config's certificate, else a self-signed one.") var lan = false
    @Option(help: ArgumentHelp("The TCP port (default: the one in effect, else 8470).", valueName: "port")) var port: Int?

    func run() throws {
        try reporting {
            var params: [String: JSON] = ["lan": .bool(lan)]
            if let port { params["port"] = .int(Int64(port)) }
            let r = try RemoteVerb.call(global, "remote.enable", params)
            if global.json { return print(r.jsonString) }
            guard r["listening"] == true else {
                throw Failure("the remote is set on in \(r["overlay"]?.stringValue ?? "remote.toml") but does not listen: "
                              + (r["lastError"]?.stringValue ?? "unknown error"))
            }
            print(RemoteStatus.line(r))
            if let fp = r["fingerprint"]?.stringValue { print("certificate SHA-256 \(fp)") }
            print("next: npctl remote pair --name phone")
        }
    }
}

/// `npctl remote disable`.
struct RemoteDisable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disable",
        abstract: "Turn the web remote off, at once (writes enabled = false to remote.toml beside the config).")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try reporting {
            let r = try RemoteVerb.call(global, "remote.disable")
            if global.json { return print(r.jsonString) }
            print(RemoteStatus.line(r))
        }
    }
}
