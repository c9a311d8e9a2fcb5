#!/usr/bin/env bash
# Checks that no file under plugins/ or sdk/ includes host code, tests included.
#
# A plugin sees the host only through the C ABI, so it may include plugin_api/
# ("tessera/plugin_api/"), the SDK ("tessera/sdk/"), its own folder (plugins/NAME/) and third-party
# headers. Refused, for
# every file under plugins/ and sdk/: host/, registry/ and base/ (the host's layers), tests/ (whose
# helpers include the host), another plugin's folder, and plugins/ from sdk/. A test that needs the
# host lives in tests/ instead (tests/kernels/cpu/, tests/plugins/).
# Prints every refused include as FILE:LINE: 'INCLUDE' (FOLDER may not include TARGET) and exits 1
# when there is one, or when ROOT holds no source file under plugins/ or sdk/.
#
# Usage: check_plugin_includes.sh [REPOSITORY_ROOT]
set -euo pipefail

root=${1:-"$(dirname "$0")/.."}
if ! cd "$root" 2>/dev/null; then
  echo "check_plugin_includes: no folder $root" >&2
  exit 1
fi

folders=()
for folder in plugins sdk; do
  if [[ -d $folder ]]; then folders+=("$folder"); fi
done
files=()
if ((${#folders[@]} > 0)); then
  mapfile -d '' -t files < <(find "${folders[@]}" -type f \
    \( -name '*.h' -o -name '*.hh' -o -name '*.hpp' -o -name '*.inc' -o -name '*.c' \
       -o -name '*.cc' -o -name '*.cpp' -o -name '*.cu' \) -print0 | sort -z)
fi
if ((${#files[@]} == 0)); then
  echo "check_plugin_includes: no source files under $root/plugins or $root/sdk"
  exit 1
fi

# One awk over every file (xargs may split the list; each part prints its own lines).
problems=$(printf '%s\0' "${files[@]}" | xargs -0 awk '
  FNR == 1 {
    split(FILENAME, parts, "/")
    own = parts[1] == "plugins" ? "plugins/" parts[2] : "sdk"
  }
  /^[ \t]*#[ \t]*include[ \t]*["<]/ {
    line = $0
    sub(/^[ \t]*#[ \t]*include[ \t]*["<]/, "", line)
    sub(/[">].*$/, "", line)
    split(line, target, "/")
    refused = ""
    if (target[1] == "host" || target[1] == "registry" || target[1] == "base" ||
        target[1] == "tests") {
      refused = target[1] "/"
    } else if (target[1] == "plugins" && (own == "sdk" || "plugins/" target[2] != own)) {
      refused = target[1] "/" target[2] "/"
    }
    if (refused != "") {
      text = $0
      sub(/^[ \t]+/, "", text)
      printf "%s:%d: '\''%s'\'' (%s may not include %s)\n", FILENAME, FNR, text, own, refused
    }
  }')

if [[ -n $problems ]]; then
  count=$(printf '%s\n' "$problems" | wc -l)
  printf '%s\n' "$problems"
  echo "check_plugin_includes: ${#files[@]} files, $count refused includes under plugins/ or sdk/" \
       "(a test that needs the host belongs in tests/)"
  exit 1
fi
echo "check_plugin_includes: ${#files[@]} files, 0 refused includes under plugins/ or sdk/"
