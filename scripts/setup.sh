#!/usr/bin/env bash
# Installs the system packages PlayerHost needs, if any is missing. Safe to run again.
set -euo pipefail

# mpv plays the demo's and the tests' mpv sessions; sox (with its Ogg Vorbis format) makes the
# tagged audio file they play. tmux runs `npctl watch` in a real terminal for its tests.
# libsystemd-dev is sd-bus (the MPRIS2 export); dbus-daemon, dbus-monitor (dbus-bin), playerctl
# and gdbus (libglib2.0-bin) are what the MPRIS tests drive it with. mpv-mpris and
# python3-dbus/python3-gi (a fake MPRIS player) are what the MPRIS import tests talk to.
# libvips, libavformat and ffmpeg decode and make artwork (the helper, the tests, the demo's
# cover); libcurl fetches remote artwork. pulseaudio (with pactl) is the audio server the test of
# mpv's default output starts, with a null sink, to check mpv picks the system's output; iproute2
# (ip netns) makes the network namespace the artwork redirect test fetches in.
# libwebsockets-dev with its libuv event library (libwebsockets-evlib-uv, loaded at run time) serves
# the web remote on the daemon's loop; libqrencode-dev draws `npctl remote pair`'s QR code;
# python3-websockets is the remote's protocol tests' client; chromium, chromium-driver and
# python3-selenium are the real browser its end-to-end test and benchmark drive (headless).
packages=(libwebsockets-dev libwebsockets-evlib-uv libqrencode-dev python3-websockets chromium chromium-driver python3-selenium libuv1-dev libsystemd-dev pkg-config socat python3 mpv sox libsox-fmt-base tmux dbus-daemon dbus-bin playerctl libglib2.0-bin libvips-dev libavformat-dev libcurl4-openssl-dev ffmpeg mpv-mpris python3-dbus python3-gi pulseaudio pulseaudio-utils iproute2)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    echo "setup: swift is at /opt/swift/usr/bin; add it to PATH" >&2
  else
    echo "setup: a Swift 6 toolchain is required (swift not found on PATH)" >&2
  fi
  exit 1
fi
