#!/usr/bin/env bash
# Installs playerhostd and npctl for one user, as a systemd user service:
#
#   scripts/install.sh [--prefix ~/.local]     release build, then install
#   scripts/install.sh --uninstall [--prefix]  remove exactly what the install put there
#
# What goes where (PREFIX defaults to ~/.local):
#   PREFIX/bin/playerhostd, PREFIX/bin/npctl                     release builds
#   PREFIX/bin/playerhost-artwork                               the artwork decoder helper, which
#                                                                the daemon runs from its own folder
#   PREFIX/share/systemd/user/playerhostd.service               Type=notify, Restart=on-failure,
#                                                                ExecReload sends SIGHUP
#   PREFIX/share/bash-completion/completions/{npctl,playerhostd}
#   PREFIX/share/zsh/site-functions/{_npctl,_playerhostd}
#   PREFIX/share/fish/vendor_completions.d/{npctl,playerhostd}.fish
#   PREFIX/share/man/man1/{playerhostd,npctl}*.1                 swift-argument-parser's
#                                                                generate-manual plugin
#   PREFIX/share/playerhost/remote/*                            the web remote's page
#   PREFIX/share/playerhost/install-manifest                     every file and directory the
#                                                                install created
#
# --bin-dir DIR takes already-built binaries from DIR instead of building (the tests use it);
# man pages are then made from each tool's --help, as they are when the plugin cannot run.
set -euo pipefail

usage() { sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; }

prefix="${HOME:?}/.local"
uninstall=0
bin_from=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="${2:?--prefix needs a directory}"; shift 2 ;;
    --prefix=*) prefix="${1#*=}"; shift ;;
    --uninstall) uninstall=1; shift ;;
    --bin-dir) bin_from="${2:?--bin-dir needs a directory}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install.sh: unknown argument '$1' (see --help)" >&2; exit 64 ;;
  esac
done
prefix="$(realpath -m -- "$prefix")"
manifest="$prefix/share/playerhost/install-manifest"
root="$(cd "$(dirname "$0")/.." && pwd)"

# Removes the files the manifest lists, then the directories it lists (deepest first) if empty.
remove_installed() {
  local files=() dirs=() kind path
  while IFS=' ' read -r kind path; do
    case "$kind" in f) files+=("$path") ;; d) dirs+=("$path") ;; esac
  done < "$manifest"
  for path in "${files[@]}"; do rm -f -- "$path"; done
  rm -f -- "$manifest"
  local i
  for (( i=${#dirs[@]}-1; i>=0; i-- )); do rmdir -- "${dirs[$i]}" 2>/dev/null || true; done
}

if [ "$uninstall" = 1 ]; then
  if [ ! -f "$manifest" ]; then
    echo "install.sh: nothing to uninstall under $prefix (no $manifest)" >&2
    exit 1
  fi
  remove_installed
  echo "uninstalled playerhost from $prefix"
  exit 0
fi

# A second install replaces the first cleanly.
[ -f "$manifest" ] && remove_installed

created_dirs=()
installed=()
# mkdir -p that remembers each directory it made, so --uninstall can remove exactly those.
make_dir() {
  local d="$1" missing=()
  while [ ! -d "$d" ]; do missing=("$d" "${missing[@]}"); d="$(dirname -- "$d")"; done
  for d in "${missing[@]}"; do mkdir -- "$d"; created_dirs+=("$d"); done
}
# put MODE SOURCE DEST: refuses to overwrite a file it did not install.
put() {
  local mode="$1" src="$2" dest="$3"
  if [ -e "$dest" ]; then
    echo "install.sh: $dest exists and was not installed by this script; remove it or choose another --prefix" >&2
    exit 1
  fi
  make_dir "$(dirname -- "$dest")"
  install -m "$mode" -- "$src" "$dest"
  installed+=("$dest")
}

work="$(mktemp -d)"
trap 'rm -rf -- "$work"' EXIT

# 1. Binaries.
man_dir=""
if [ -n "$bin_from" ]; then
  bin="$bin_from"
else
  export PATH="/opt/swift/usr/bin:$PATH"
  (cd "$root" && for product in playerhostd npctl playerhost-artwork; do
     swift build -c release -j 1 --product "$product" || exit 1
   done)
  bin="$(cd "$root" && swift build -c release --show-bin-path)"
  # Man pages from swift-argument-parser's generate-manual plugin (it builds in release too).
  if (cd "$root" && swift package plugin --allow-writing-to-package-directory generate-manual >"$work/manual.log" 2>&1); then
    man_dir="$root/.build/plugins/GenerateManual/outputs"
  else
    echo "install.sh: the generate-manual plugin failed (see below); making man pages from --help instead" >&2
    tail -5 "$work/manual.log" >&2
  fi
fi
# The artwork helper goes beside the daemon: playerhostd starts it from its own folder.
for tool in playerhostd npctl playerhost-artwork; do
  [ -x "$bin/$tool" ] || { echo "install.sh: $bin/$tool is missing" >&2; exit 1; }
  put 0755 "$bin/$tool" "$prefix/bin/$tool"
done

# The web remote's page (issue 25): the daemon serves it from ../share/playerhost/remote beside
# its own folder.
for f in "$root"/Sources/PlayerHost/Remote/Page/*; do
  put 0644 "$f" "$prefix/share/playerhost/remote/$(basename -- "$f")"
done

# 2. The systemd user unit.
cat > "$work/playerhostd.service" <<EOF
[Unit]
Description=PlayerHost: media player sessions and Now Playing arbitration
Documentation=man:playerhostd(1) man:npctl(1)

[Service]
Type=notify
ExecStart=$prefix/bin/playerhostd
ExecReload=/bin/kill -HUP \$MAINPID
Restart=on-failure

[Install]
WantedBy=default.target
EOF
put 0644 "$work/playerhostd.service" "$prefix/share/systemd/user/playerhostd.service"

# 3. Shell completions.
for tool in npctl playerhostd; do
  "$prefix/bin/$tool" --generate-completion-script bash > "$work/$tool.bash"
  "$prefix/bin/$tool" --generate-completion-script zsh > "$work/_$tool"
  "$prefix/bin/$tool" --generate-completion-script fish > "$work/$tool.fish"
  put 0644 "$work/$tool.bash" "$prefix/share/bash-completion/completions/$tool"
  put 0644 "$work/_$tool" "$prefix/share/zsh/site-functions/_$tool"
  put 0644 "$work/$tool.fish" "$prefix/share/fish/vendor_completions.d/$tool.fish"
done

# 4. Man pages: the plugin's, else one page per tool from its --help.
# (playerhostd reads its options itself, without swift-argument-parser: its page is always
# made from --help.)
for tool in playerhostd npctl; do
  pages=""
  [ -n "$man_dir" ] && pages=$(ls "$man_dir/$tool"/*.1 2>/dev/null || true)
  if [ -n "$pages" ]; then
    for page in $pages; do put 0644 "$page" "$prefix/share/man/man1/$(basename -- "$page")"; done
  else
    {
      echo ".TH $(echo "$tool" | tr '[:lower:]' '[:upper:]') 1 \"\" \"$tool $("$prefix/bin/$tool" --version)\" \"User Commands\""
      echo ".SH NAME"
      echo "$tool \\- $("$prefix/bin/$tool" --help | sed -n '1s/^OVERVIEW: //p')"
      echo ".SH DESCRIPTION"
      echo ".nf"
      "$prefix/bin/$tool" --help | sed -e 's/\\/\\e/g' -e 's/^\./\\\&./'
      echo ".fi"
    } > "$work/$tool.1"
    put 0644 "$work/$tool.1" "$prefix/share/man/man1/$tool.1"
  fi
done

# 5. The manifest, written last: it lists itself and every directory the install created.
make_dir "$(dirname -- "$manifest")"
{
  for d in "${created_dirs[@]}"; do echo "d $d"; done
  for f in "${installed[@]}"; do echo "f $f"; done
} > "$manifest"

if command -v systemd-analyze >/dev/null 2>&1; then
  # The man pages are checked where they were installed.
  MANPATH="$prefix/share/man:" systemd-analyze verify "$prefix/share/systemd/user/playerhostd.service"
fi
echo "installed playerhost in $prefix (manifest: $manifest)"
case "$prefix" in
  "$HOME/.local") echo "start it: systemctl --user daemon-reload && systemctl --user enable --now playerhostd" ;;
  *) echo "systemd looks for user units in ~/.local/share/systemd/user and \$XDG_DATA_DIRS/systemd/user" ;;
esac
