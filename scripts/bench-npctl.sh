#!/usr/bin/env bash
# npctl status against playerctl status on the same exported player (issue 23: "no slower"):
# a private dbus-daemon, a release playerhostd exporting one playing session, then 100 calls of
# each, interleaved, wall time per call. Usage: scripts/bench-npctl.sh [BIN_DIR] (after
# swift build -c release). Prints one line; nothing here is a test.
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
bin=${1:-$root/.build/release}
d=$(mktemp -d)
dbus-daemon --session --address=unix:path=$d/bus --nofork --print-address >/dev/null 2>&1 &
DB=$!
sleep 0.3
export DBUS_SESSION_BUS_ADDRESS=unix:path=$d/bus
export PLAYERHOST_SOCKET=$d/s
$bin/playerhostd --socket $d/s --state-dir $d/state >/dev/null 2>&1 &
PH=$!
for i in $(seq 50); do [ -S $d/s ] && break; sleep 0.1; done
$bin/npctl call session.create '{"id":"a","kind":"main"}' >/dev/null
$bin/npctl call audio.configure '{"session":"a","category":"playback"}' >/dev/null
$bin/npctl call audio.activate '{"session":"a"}' >/dev/null
$bin/npctl call command.bindDefaults '{"session":"a"}' >/dev/null
$bin/npctl call player.load '{"session":"a","items":[{"title":"One","artist":"X","duration":100}]}' >/dev/null
$bin/npctl call player.play '{"session":"a"}' >/dev/null
sleep 0.3
playerctl -p playerhost status; $bin/npctl status
tp=0; tn=0
for r in $(seq 100); do
  s=$(date +%s%N); playerctl -p playerhost status >/dev/null; e=$(date +%s%N); tp=$((tp+e-s))
  s=$(date +%s%N); $bin/npctl status >/dev/null; e=$(date +%s%N); tn=$((tn+e-s))
done
echo "playerctl status: $((tp/100000)) µs/call; npctl status: $((tn/100000)) µs/call; ratio $(python3 -c "print(round($tn/$tp,2))")"
kill $PH $DB; rm -rf $d
