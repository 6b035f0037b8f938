// playerhost-artwork: the artwork helper. The daemon starts it with a pipe on stdin and stdout and
// nothing else; it answers one JSON request per line with one JSON reply per line.
//
// Every untrusted byte (images fetched from the network, media files' attached pictures, image
// files) is fetched and parsed here, never in the daemon: a file that crashes a decoder takes down
// only this process, which the daemon restarts, and a large body is in this process's memory, not
// the daemon's. Requests (`out` paths are chosen by the daemon, inside its cache directory):
//
//   {"id": N, "op": "embedded", "media": PATH, "out": PATH}   the media file's attached picture
//   {"id": N, "op": "image", "in": PATH, "out": PATH}         validate an image file, copy it to out
//   {"id": N, "op": "data", "uri": "data:…", "out": PATH}     decode a data: URI, validate, write
//   {"id": N, "op": "fetch", "url": URL, "out": PATH, "timeoutMs": T, "maxRedirects": R}
//                                                             fetch an http(s) image, validate, write
//   {"id": N, "op": "thumbnail", "in": PATH, "out": PATH, "width": W, "height": H}
//   {"id": N, "op": "verify", "in": PATH, "bytes": B, "checksum": C}
//                                             a cached file still holds what its name promises
//                                             ("none": true), else the error `verifyMismatch`
//
// Every op takes "maxBytes" (the largest input or body, at most 64 MiB; default 16 MiB) and
// "maxPixels" (the largest width×height an image may declare; default 100 000 000): an image
// over it is refused from its header, before any pixel is decoded.
//
// Replies: {"id": N, "ok": true, "width", "height", "type", "bytes", "checksum"} describing the file
// written to `out` (mode 0600), or {"id": N, "ok": false, "error": "…"}; "none": true when a media
// file has no attached picture.
import CArtwork
import Glibc
import PlayerHost

/// The largest input the helper ever reads, whatever a request says.
let maxInputBytes = 64 << 20
/// Defaults when a request names no bound.
let defaultMaxBytes = 16 << 20
let defaultMaxPixels: Int64 = 100_000_000

/// The error of a `verify` whose file does not match (the daemon then discards the file).
let verifyMismatch = "the file does not match its name"

/// FNV-1a (32 bits) of the bytes: the daemon checks a cached file against it before using it.
func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    var h: UInt32 = 2_166_136_261
    for b in bytes { h = (h ^ UInt32(b)) &* 16_777_619 }
    return h
}

struct Failure: Error { var message: String }

/// The request's bounds.
struct Bounds {
    var maxBytes: Int
    var maxPixels: UInt64

    init(_ request: JSON) {
        maxBytes = max(1, min(request["maxBytes"]?.intValue ?? defaultMaxBytes, maxInputBytes))
        maxPixels = UInt64(max(1, request["maxPixels"]?.intValue.map(Int64.init) ?? defaultMaxPixels))
    }
}

/// Validates `bytes` as an image within the pixel bound and writes them unchanged to `out`.
func accept(_ bytes: UnsafeRawBufferPointer, out: String, bounds: Bounds) throws -> [String: JSON] {
    guard bytes.count <= bounds.maxBytes else { throw Failure(message: "the image is larger than the \(bounds.maxBytes)-byte limit") }
    var w: Int32 = 0, h: Int32 = 0
    var mime: UnsafePointer<CChar>?
    var err = [CChar](repeating: 0, count: 512)
    guard pha_probe(bytes.baseAddress, bytes.count, bounds.maxPixels, &w, &h, &mime, &err, err.count) == 0, let mime else {
        throw Failure(message: String(cBuffer: err))
    }
    guard Files.write(out, bytes) else { throw Failure(message: "cannot write \(out): \(String(cString: strerror(errno)))") }
    return ["width": .int(Int64(w)), "height": .int(Int64(h)), "type": .string(String(cString: mime)),
            "bytes": .int(Int64(bytes.count)), "checksum": .int(Int64(checksum(bytes)))]
}

func handle(_ request: JSON) throws -> [String: JSON] {
    func path(_ key: String) throws -> String {
        guard let p = request[key]?.stringValue, p.hasPrefix("/") else { throw Failure(message: "\(key): an absolute path is required") }
        return p
    }
    let bounds = Bounds(request)
    do {
        switch request["op"]?.stringValue {
        case "embedded":
            let media = try path("media"), out = try path("out")
            // Opened here (a link followed to its target, no FIFO, a regular file), then read by
            // libavformat through the descriptor: the file it reads is the one checked.
            let (fd, _) = try Files.openRegular(media, followLinks: true)
            defer { close(fd) }
            var data: UnsafeMutablePointer<UInt8>?
            var len = 0
            var err = [CChar](repeating: 0, count: 512)
            let r = pha_attached_picture("/proc/self/fd/\(fd)", bounds.maxBytes, &data, &len, &err, err.count)
            if r < 0 { throw Failure(message: String(cBuffer: err)) }
            guard r == 1, let data else { return ["none": true] }
            defer { free(data) }
            return try accept(UnsafeRawBufferPointer(start: data, count: len), out: out, bounds: bounds)
        case "image":
            let input = try path("in"), out = try path("out")
            let bytes = try Files.read(input, limit: bounds.maxBytes, followLinks: true)
            return try bytes.withUnsafeBytes { try accept($0, out: out, bounds: bounds) }
        case "data":
            guard let uri = request["uri"]?.stringValue else { throw Failure(message: "uri: a data: URI is required") }
            let out = try path("out")
            let bytes = try DataURI.decode(uri, maxBytes: bounds.maxBytes)
            return try bytes.withUnsafeBytes { try accept($0, out: out, bounds: bounds) }
        case "fetch":
            guard let url = request["url"]?.stringValue else { throw Failure(message: "url: a URL is required") }
            let out = try path("out")
            var limits = Fetch.Limits()
            limits.maxBytes = bounds.maxBytes
            if let t = request["timeoutMs"]?.intValue { limits.timeoutMilliseconds = max(1, min(t, 3_600_000)) }
            if let r = request["maxRedirects"]?.intValue { limits.maxRedirects = max(0, min(r, 50)) }
            let body = try Fetch.get(url, limits: limits)
            return try body.withUnsafeBytes { try accept($0, out: out, bounds: bounds) }
        case "thumbnail":
            let input = try path("in"), out = try path("out")
            guard let w = request["width"]?.intValue, let h = request["height"]?.intValue, (1...10_000).contains(w), (1...10_000).contains(h) else {
                throw Failure(message: "width and height: integers 1…10000 are required")
            }
            let bytes = try Files.read(input, limit: maxInputBytes, followLinks: false)
            var ow: Int32 = 0, oh: Int32 = 0
            var err = [CChar](repeating: 0, count: 512)
            let png: Int32 = out.hasSuffix(".png") ? 1 : 0
            let r = bytes.withUnsafeBytes {
                pha_thumbnail($0.baseAddress, $0.count, bounds.maxPixels, Int32(w), Int32(h), png, out, &ow, &oh, &err, err.count)
            }
            guard r == 0 else { throw Failure(message: String(cBuffer: err)) }
            let written = try Files.read(out, limit: maxInputBytes, followLinks: false)
            chmod(out, 0o600)
            return ["width": .int(Int64(ow)), "height": .int(Int64(oh)), "type": .string(png == 1 ? "image/png" : "image/jpeg"),
                    "bytes": .int(Int64(written.count)), "checksum": .int(Int64(written.withUnsafeBytes(checksum)))]
        case "verify":
            let input = try path("in")
            guard let bytes = request["bytes"]?.intValue, (0...maxInputBytes).contains(bytes),
                  let sum = request["checksum"]?.intValue else { throw Failure(message: "bytes and checksum are required") }
            guard let data = try? Files.read(input, limit: bytes, followLinks: false), data.count == bytes,
                  Int(data.withUnsafeBytes(checksum)) == sum else { throw Failure(message: verifyMismatch) }
            return ["none": true]
        default:
            throw Failure(message: "unknown op")
        }
    } catch let e as Files.Refused {
        throw Failure(message: e.message)
    } catch let e as Fetch.Failed {
        throw Failure(message: e.message)
    } catch let e as DataURI.Malformed {
        throw Failure(message: e.message)
    }
}

guard pha_init(CommandLine.arguments[0]) == 0 else {
    let message = "playerhost-artwork: libvips failed to start\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(1)
}
signal(SIGPIPE, SIG_IGN)
umask(0o077)

// One request per line. A line is paths and a URL (64 KiB), or a data: URI carrying an image of
// up to maxInputBytes in base64; longer ones end the helper (the daemon never sends one).
let maxLineBytes = 64 * 1024 + (maxInputBytes / 3 + 1) * 4
var pending: [UInt8] = []
/// How much of `pending` is known to hold no newline: a long line is scanned once, not per read.
var scanned = 0
var buffer = [UInt8](repeating: 0, count: 64 * 1024)
while true {
    let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
    if n < 0 && errno == EINTR { continue }
    if n <= 0 { exit(0) }  // the daemon closed the pipe: it is gone or shutting down
    pending.append(contentsOf: buffer[0..<n])
    while let nl = pending[scanned...].firstIndex(of: 0x0A) {
        let line = Array(pending[..<nl])
        pending.removeSubrange(...nl)
        scanned = 0
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
    scanned = pending.count
    if pending.count > maxLineBytes { exit(2) }
}
