#!/usr/bin/env bash
# The layer rules, checked by grep as a second line behind the compiler (Package.swift's target
# graph is the real check: a layer that imports what it does not depend on does not build).
# What this adds: no one widens the graph by editing Package.swift without noticing.
#  - only Loop/ imports the C libraries (CUV, CSDBus, CCurl, CWebSockets);
#  - Model/ imports nothing but the standard library, Base and swift-collections,
#    renders nothing for the wire (its toJSON renderers live in Host/ModelJSON/) and takes typed
#    values (JSON only in the three files that keep a peer's values unread, see below);
#  - Base/ imports nothing at all;
#  - RPC/ and Client/ open no libuv and no Foundation; Client/ never imports Server, Host, Loop;
#  - nothing in Sources/PlayerHost imports Foundation (the config's TOML reader is our own), and
#    playerhostd takes no argument parser (it would bring FoundationEssentials back).
set -euo pipefail
cd "$(dirname "$0")/../Sources/PlayerHost"
fail=0
bad() { echo "check-layers: $1" >&2; fail=1; }
imports() { grep -HnE '^\s*(@[A-Za-z_]+(\([^)]*\))? +)*(public |package |internal )?import ' "$@" || true; }

while IFS= read -r hit; do
    case "$hit" in Loop/*) ;; *) bad "only Loop/ may import a C library: $hit" ;; esac
done < <(imports */*.swift | grep -E 'import (CUV|CSDBus|CCurl|CWebSockets)\b' || true)

while IFS= read -r hit; do
    bad "Model/ imports only PlayerHostBase and swift-collections: $hit"
done < <(imports Model/*.swift | grep -vE 'import (PlayerHostBase|HeapModule|OrderedCollections|HashTreeCollections|DequeModule)$' || true)

while IFS= read -r hit; do bad "Base/ imports nothing: $hit"; done < <(imports Base/*.swift)

# The model takes typed values: wire decoding lives in Host/ModelJSON/. LocalizedString's stays
# while npctl (Client/) reads it too.
while IFS= read -r hit; do
    bad "Model/ decodes no JSON (Host/ModelJSON/ does): $hit"
done < <(grep -HnE 'init\??\(json:' Model/*.swift | grep -v '^Model/LocalizedString.swift:' || true)

# What JSON the model may hold at all: values it never reads, kept for a peer as written (a
# command's fields for its out-of-process handler, a plugin's extra info keys) and
# LocalizedString's decoder above. Typed values everywhere else (commands, configuration, errors).
while IFS= read -r hit; do
    bad "Model/ takes typed values, not JSON (decode in Host/ModelJSON/): $hit"
done < <(grep -HnwE 'JSON' Model/*.swift | grep -vE '^Model/[^:]+:[0-9]+:\s*///' \
    | grep -vE '^Model/(CommandPayload|LocalizedString|NowPlayingInfo)\.swift:' || true)

while IFS= read -r hit; do
    bad "Model/ renders nothing for the wire (Host/ModelJSON/ does): $hit"
done < <(grep -HnE 'func (toJSON|[a-z][A-Za-z]*JSON)\(' Model/*.swift || true)

while IFS= read -r hit; do
    bad "Client/ (npctl) must not reach the loop, the server or the host: $hit"
done < <(imports Client/*.swift | grep -E 'import (PlayerHostLoop|PlayerHostServer|PlayerHostHost|PlayerHostConfig|PlayerHostPlugin|TOMLKit)\b' || true)

while IFS= read -r hit; do
    bad "RPC/ has no sockets and no loop: $hit"
done < <(imports RPC/*.swift | grep -E 'import (PlayerHostLoop|PlayerHostServer|PlayerHostHost|PlayerHostModel)\b' || true)

while IFS= read -r hit; do bad "no Foundation in the library: $hit"; done \
    < <(imports */*.swift | grep -E 'import (Foundation|FoundationEssentials)\b' || true)

while IFS= read -r hit; do bad "playerhostd reads its command line itself (DaemonCommandLine): $hit"; done \
    < <(imports ../playerhostd/*.swift | grep -E 'import (ArgumentParser|Foundation|FoundationEssentials)\b' || true)

# The graph itself, as declared: the same rules in Package.swift's dependency lists.
deps() { # target name → its dependency list, one line
    awk -v t="\"$1\"" '$0 ~ "name: " t {on=1} on {print} on && /path:/ {exit}' ../../Package.swift | tr -d '\n'
}
deps PlayerHostModel | grep -qE 'Loop|RPC|Client|Server|Host"|TOMLKit|Logging' && bad "Package.swift: PlayerHostModel depends on more than Base and swift-collections"
deps PlayerHostClient | grep -qE 'PlayerHost(Loop|Server|Host|Config|Plugin)|TOMLKit' && bad "Package.swift: PlayerHostClient depends on the loop, server or host"
deps PlayerHostRPC | grep -qE 'PlayerHost(Loop|Server|Host|Model)' && bad "Package.swift: PlayerHostRPC depends on more than Base"
deps PlayerHostConfig | grep -qE 'PlayerHost(Loop|Server|Host)"' && bad "Package.swift: PlayerHostConfig depends on the loop, server or host"
awk '/^ *name: "playerhostd",/ {on=1} on {print} on && /^        \),/ {exit}' ../../Package.swift | grep -q 'ArgumentParser' &&
    bad "Package.swift: playerhostd depends on swift-argument-parser (FoundationEssentials)"
deps PlayerHostPluginAPI | grep -qE 'PlayerHost(Server|Host)"' && bad "Package.swift: PlayerHostPluginAPI re-exports the server or host"

# Plugins (built-in and examples) use the plugin API, not the daemon's umbrella.
while IFS= read -r hit; do bad "plugins import PlayerHostPluginAPI, not the daemon: $hit"; done \
    < <(grep -rHnE '^\s*(@_exported +)?import PlayerHost(Host|Server)?$' ../Plugins ../../examples/swift-plugin/Sources 2>/dev/null || true)

[ $fail -eq 0 ] && echo "check-layers: ok"
exit $fail
