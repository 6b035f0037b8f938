import Glibc

/// The controlling terminal for `npctl watch`: keys one at a time without echo, the
/// alternate screen, the cursor hidden — and all of it put back by `restore`, which the
/// watch calls on every way out (q, Ctrl-C, SIGTERM, the daemon refusing to come back).
final class Terminal {
    private var saved = termios()
    private var raw = false

    /// Whether stdout is a terminal (otherwise the watch prints a line per change).
    static var isInteractive: Bool { isatty(1) == 1 && isatty(0) == 1 }

    /// Columns and rows of the terminal (80×24 when it does not say).
    static func size() -> (width: Int, height: Int) {
        var ws = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 { return (Int(ws.ws_col), Int(ws.ws_row)) }
        return (80, 24)
    }

    /// Raw-ish mode: no line buffering, no echo; signals (Ctrl-C) still arrive as signals.
    func enter() {
        if tcgetattr(0, &saved) == 0 {
            var t = saved
            t.c_lflag &= ~tcflag_t(ICANON | ECHO)
            t.c_cc.6 = 1  // VMIN
            t.c_cc.5 = 0  // VTIME
            if tcsetattr(0, TCSANOW, &t) == 0 { raw = true }
        }
        write("\u{1B}[?1049h\u{1B}[?25l")
    }

    func restore() {
        if raw { tcsetattr(0, TCSANOW, &saved); raw = false }
        write("\u{1B}[?25h\u{1B}[?1049l")
    }

    /// Draws `lines` over the whole screen in one write (no flicker: home, then each line
    /// cleared to its end).
    func draw(_ lines: [String]) {
        var out = "\u{1B}[H"
        for (i, line) in lines.enumerated() {
            out += line + "\u{1B}[K" + (i == lines.count - 1 ? "" : "\r\n")
        }
        out += "\u{1B}[J"
        write(out)
    }

    func write(_ s: String) {
        var bytes = Array(s.utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(1, $0.baseAddress! + off, $0.count - off) }
            if n < 0 { if errno == EINTR { continue }; return }
            off += n
        }
    }
}
