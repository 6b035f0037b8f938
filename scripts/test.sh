#!/usr/bin/env bash
# Runs every test: installs what is missing, builds everything (the end-to-end tests run the
# real playerhostd and npctl binaries), then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
./scripts/setup.sh
./scripts/check-layers.sh
swift build --build-tests

# No test may touch the user's own state, config, cache or runtime directory (issue 24): each
# test host gets temp directories of its own. What is there before and after must match.
# (A daemon of the user's already running would write there itself: then it is not checked.)
user_files() {
    find "${XDG_STATE_HOME:-$HOME/.local/state}/playerhost" "${XDG_CONFIG_HOME:-$HOME/.config}/playerhost" \
         "${XDG_CACHE_HOME:-$HOME/.cache}/playerhost" "${XDG_RUNTIME_DIR:-/nonexistent}/playerhost" \
         -printf '%p %s %T@\n' 2>/dev/null | sort || true
}
check_user_files=1
pgrep -x playerhostd >/dev/null && check_user_files=0
before=$(user_files)
status=0
swift test --skip-build "$@" || status=$?
if [ "$check_user_files" = 1 ] && [ "$(user_files)" != "$before" ]; then
    echo "test.sh: the tests changed the user's own playerhost files (state, config, cache or runtime dir):" >&2
    diff <(echo "$before") <(user_files) >&2 || true
    [ "$status" = 0 ] && status=1
fi
exit "$status"
