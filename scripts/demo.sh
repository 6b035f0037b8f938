#!/usr/bin/env bash
# Installs what is missing, builds, starts playerhostd in the background with the demo sessions
# (examples/demo.toml) plus an mpv session playing a generated audio file, and shows them.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
./scripts/setup.sh
swift build
bin="$(swift build --show-bin-path)"
"$bin/npctl" daemon start -- --config "$PWD/examples/demo.toml"

# Real playback: a short tagged tone made with sox, played by an mpv session through mpv's null
# audio output, pinned by examples/demo.toml's `[mpv] ao = "null"` so the demo runs the same on any
# machine (nothing is heard; drop that line, or set PLAYERHOST_MPV_AO=pulse, to hear it).
# It starts playing last, so it becomes Now Playing and interrupts main (both are non-mixable).
# The file carries an embedded cover (made with ffmpeg), so the session shows artwork end to end.
if command -v mpv >/dev/null && command -v sox >/dev/null && command -v ffmpeg >/dev/null; then
  media="${XDG_RUNTIME_DIR:-/tmp}/playerhost-demo-$(id -u)"
  mkdir -p "$media" && chmod 700 "$media"
  sox -n -r 44100 -c 2 "$media/concert-a.wav" synth 120 sine 440 vol 0.2
  ffmpeg -loglevel error -y -f lavfi -i "testsrc=s=600x600" -frames:v 1 "$media/cover.jpg"
  ffmpeg -loglevel error -y -i "$media/concert-a.wav" -i "$media/cover.jpg" -map 0 -map 1 -c:a libmp3lame \
    -c:v copy -disposition:v attached_pic -metadata title="Concert A" -metadata artist="The Sine Waves" \
    -metadata album="Test Tones" "$media/concert-a.mp3"
  rm -f "$media/concert-a.wav"
  "$bin/npctl" open --session mpv "$media/concert-a.mp3"
  "$bin/npctl" loop one --session mpv
else
  echo "demo: mpv, sox or ffmpeg is missing, so there is no mpv session (scripts/setup.sh installs them)" >&2
fi
echo
"$bin/npctl" now
echo
"$bin/npctl" sessions
echo
# Every command suggested here works from the state the demo leaves (NpctlExampleTests
# runs the same story). pip has not played yet, so its audio session is not active (sessions
# activate right before they first play): it must activate before it can become Now Playing.
cat <<EOF
npctl is $bin/npctl — try:
  npctl                                     # what is Now Playing, on one line (npctl now)
  npctl status                              # Playing / Paused / Stopped, as playerctl; -F to follow
  npctl play-pause                          # pause/resume Now Playing, through its command center
  npctl metadata --format '{{artist}} - {{title}}'   # playerctl's templates
  npctl position 30+                        # 30 s forward (also 1:30, -5, 10-)
  npctl activate pip && npctl promote pip   # pip's audio on (as pressing play in it); PiP expanded → pip is Now Playing
  npctl activate main && npctl demote pip   # PiP minimized → main takes over again
  npctl open FILE                           # play a file of yours in the mpv session (npctl add FILE queues it)
  npctl watch                               # live view: space, n, p, ←/→, q
  npctl doctor                              # why each session is or is not Now Playing
  npctl daemon stop
EOF
