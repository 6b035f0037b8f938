// playerhost-artwork: the artwork decoder helper. The daemon starts it with a pipe on stdin and
// stdout and nothing else; it answers one JSON request per line with one JSON reply per line.
//
// Every untrusted byte (images fetched from the network, media files' attached pictures) is parsed
// here, never in the daemon: a file that crashes a decoder takes down only this process, which
// the daemon restarts. Requests (paths are chosen by the daemon, inside its cache directory):
//
//   {"id": N, "op": "embedded", "media": PATH, "out": PATH}   the media file's attached picture
//   {"id": N, "op": "image", "in": PATH, "out": PATH}         validate an image, copy it to out
//   {"id": N, "op": "thumbnail", "in": PATH, "out": PATH, "width": W, "height": H}
//
// Replies: {"id": N, "ok": true, "width", "height", "type", "bytes", "checksum"} describing the file
// written to `out` (mode 0600), or {"id": N, "ok": false, "error": "…"}; "none": true when a media
// file has no attached picture.
import CArtwork
import Glibc
import PlayerHost

/// The largest input the helper reads (the daemon caps downloads lower).
let maxInputBytes = 64 << 20

func readFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 { if errno == EINTR { continue }; return nil }
        if n == 0 { return out }
        out.append(contentsOf: chunk[0..<n])
        if out.count > maxInputBytes { return nil }
    }
}

func writeFile(_ path: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var offset = 0
    while offset < bytes.count {
        let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if n < 0 { if errno == EINTR { continue }; return false }
        offset += n
    }
    return true
}

/// FNV-1a (32 bits) of the bytes: the daemon checks a cached file against it before using it.
func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    var h: UInt32 = 2_166_136_261
    for b in bytes { h = (h ^ UInt32(b)) &* 16_777_619 }
    return h
}

struct Failure: Error { var message: String }

/// Validates `bytes` as an image and writes them unchanged to `out`.
func accept(_ bytes: UnsafeRawBufferPointer, out: String) throws -> [String: JSON] {
    var w: Int32 = 0, h: Int32 = 0
    var mime: UnsafePointer<CChar>?
    var err = [CChar](repeating: 0, count: 512)
    guard pha_probe(bytes.baseAddress, bytes.count, &w, &h, &mime, &err, err.count) == 0, let mime else {
        throw Failure(message: String(cBuffer: err))
    }
    guard writeFile(out, bytes) else { throw Failure(message: "cannot write \(out): \(String(cString: strerror(errno)))") }
    return ["width": .int(Int64(w)), "height": .int(Int64(h)), "type": .string(String(cString: mime)),
            "bytes": .int(Int64(bytes.count)), "checksum": .int(Int64(checksum(bytes)))]
}

func handle(_ request: JSON) throws -> [String: JSON] {
    func path(_ key: String) throws -> String {
        guard let p = request[key]?.stringValue, p.hasPrefix("/") else { throw Failure(message: "\(key): an absolute path is required") }
        return p
    }
    switch request["op"]?.stringValue {
    case "embedded":
        let media = try path("media"), out = try path("out")
        var data: UnsafeMutablePointer<UInt8>?
        var len = 0
        var err = [CChar](repeating: 0, count: 512)
        let r = pha_attached_picture(media, &data, &len, &err, err.count)
        if r < 0 { throw Failure(message: String(cBuffer: err)) }
        guard r == 1, let data else { return ["none": true] }
        defer { free(data) }
        return try accept(UnsafeRawBufferPointer(start: data, count: len), out: out)
    case "image":
        let input = try path("in"), out = try path("out")
        guard let bytes = readFile(input) else { throw Failure(message: "cannot read \(input) (missing or over \(maxInputBytes) bytes)") }
        return try bytes.withUnsafeBytes { try accept($0, out: out) }
    case "thumbnail":
        let input = try path("in"), out = try path("out")
        guard let w = request["width"]?.intValue, let h = request["height"]?.intValue, (1...10_000).contains(w), (1...10_000).contains(h) else {
            throw Failure(message: "width and height: integers 1…10000 are required")
        }
        guard let bytes = readFile(input) else { throw Failure(message: "cannot read \(input)") }
        var ow: Int32 = 0, oh: Int32 = 0
        var err = [CChar](repeating: 0, count: 512)
        let png: Int32 = out.hasSuffix(".png") ? 1 : 0
        let r = bytes.withUnsafeBytes { pha_thumbnail($0.baseAddress, $0.count, Int32(w), Int32(h), png, out, &ow, &oh, &err, err.count) }
        guard r == 0, let written = readFile(out) else { throw Failure(message: String(cBuffer: err)) }
        chmod(out, 0o600)
        return ["width": .int(Int64(ow)), "height": .int(Int64(oh)), "type": .string(png == 1 ? "image/png" : "image/jpeg"),
                "bytes": .int(Int64(written.count)), "checksum": .int(Int64(written.withUnsafeBytes(checksum)))]
    default:
        throw Failure(message: "unknown op")
    }
}

guard pha_init(CommandLine.arguments[0]) == 0 else {
    let message = "playerhost-artwork: libvips failed to start\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(1)
}
signal(SIGPIPE, SIG_IGN)
umask(0o077)

// One request per line; a line is at most 64 KiB (paths only), longer ones are refused.
var pending: [UInt8] = []
var buffer = [UInt8](repeating: 0, count: 64 * 1024)
while true {
    let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
    if n < 0 && errno == EINTR { continue }
    if n <= 0 { exit(0) }  // the daemon closed the pipe: it is gone or shutting down
    pending.append(contentsOf: buffer[0..<n])
    while let nl = pending.firstIndex(of: 0x0A) {
        let line = Array(pending[..<nl])
        pending.removeSubrange(...nl)
        var reply: [String: JSON]
        var id: JSON = .null
        do {
            let request = try JSONParser.parse(line)
            id = request["id"] ?? .null
            reply = try handle(request)
            reply["ok"] = true
        } catch let e as Failure {
            reply = ["ok": false, "error": .string(e.message)]
        } catch {
            reply = ["ok": false, "error": .string("bad request: \(error)")]
        }
        reply["id"] = id
        var out = JSON.object(reply).serialized()
        out.append(0x0A)
        var offset = 0
        while offset < out.count {
            let w = out.withUnsafeBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
            if w < 0 { if errno == EINTR { continue }; exit(0) }
            offset += w
        }
    }
    if pending.count > 64 * 1024 { exit(2) }
}
