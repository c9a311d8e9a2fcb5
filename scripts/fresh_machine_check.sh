#!/usr/bin/env bash
# Proves the README's two commands on a brand-new Debian 12 (bookworm):
#   1. a minimal root from `debootstrap --variant=minbase` (cached as a tarball after the first run);
#   2. a clean `git clone` of the commit under test (HEAD of this checkout) inside it;
#   3. inside `chroot`, with a clean environment: `bash scripts/quickstart.sh`, which must print the
#      example's predictions, then `TESSERA_SKIP_SANITIZERS=1 bash scripts/test.sh`.
# The Debian mirror is read from this machine's apt configuration at run time. This machine's
# ccache directory and apt archive cache are bound into the root, so a warm cache makes it fast.
# Everything is unmounted and removed on exit, also on failure or interruption. The last line
# says whether the check passed and how long each part took.
#
# Needs root (or passwordless sudo): debootstrap, chroot and mounts.
# Environment:
#   TESSERA_FRESH_CACHE_DIR  where the bare root's tarball is kept (/var/cache/tessera-fresh)
#   TESSERA_FRESH_WORK_DIR   where the root is unpacked for the run (/var/tmp)
#   TESSERA_FRESH_LOG        the full log of the commands run inside the root
#                            (<work dir>/tessera-fresh-machine.log)
#   TESSERA_FRESH_CCACHE_DIR the ccache directory bound into the root (this user's)
#   TESSERA_FRESH_APT_ARCHIVES  the .deb cache bound into the root (/var/cache/apt/archives)
# Empty directories for the last two (and a new cache dir) measure a cold machine.
set -euo pipefail

readonly suite=bookworm
repo=$(cd "$(dirname "$0")/.." && pwd)
readonly repo

minutes() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
say() { echo "fresh-machine check: $*"; }
fail() {
  echo "fresh-machine check: FAILED after $(minutes "$SECONDS"): $*" >&2
  exit 1
}

# The ccache directory of the user who runs the check, also when it re-runs itself under sudo.
if [[ -z ${TESSERA_FRESH_CCACHE_DIR:-} ]]; then
  if command -v ccache >/dev/null 2>&1; then
    TESSERA_FRESH_CCACHE_DIR=$(ccache -k cache_dir)
  else
    TESSERA_FRESH_CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache}
  fi
fi
export TESSERA_FRESH_CCACHE_DIR

if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    exec sudo -n --preserve-env=TESSERA_FRESH_CCACHE_DIR,TESSERA_FRESH_CACHE_DIR,TESSERA_FRESH_WORK_DIR,TESSERA_FRESH_LOG,TESSERA_FRESH_APT_ARCHIVES \
      bash "$0" "$@"
  fi
  fail "needs root to create a Debian root (debootstrap, chroot, mount); run it as root or give" \
    "this user passwordless sudo"
fi

readonly cache_dir=${TESSERA_FRESH_CACHE_DIR:-/var/cache/tessera-fresh}
readonly work_dir=${TESSERA_FRESH_WORK_DIR:-/var/tmp}
readonly log=${TESSERA_FRESH_LOG:-$work_dir/tessera-fresh-machine.log}
readonly apt_archives=${TESSERA_FRESH_APT_ARCHIVES:-/var/cache/apt/archives}
arch=$(dpkg --print-architecture 2>/dev/null) || fail "dpkg not found: this check runs on Debian"
readonly arch
readonly tarball=$cache_dir/$suite-minbase-$arch.tar

git -C "$repo" rev-parse --verify -q HEAD >/dev/null || fail "$repo is not a git checkout with a commit"
commit=$(git -C "$repo" rev-parse HEAD)
readonly commit
if [[ -n $(git -C "$repo" status --porcelain --untracked-files=no) ]]; then
  say "note: uncommitted changes in $repo are not part of the check (it clones ${commit:0:12})"
fi

# --- The Debian suites of this machine's apt configuration -----------------------------------
# Prints one line per Debian source: "URI SUITE COMPONENTS...", for the bookworm suites only
# (bookworm, bookworm-updates, bookworm-security): other repositories a machine may carry are not
# part of a fresh Debian 12.
debian_sources() {
  local files=()
  [[ -r /etc/apt/sources.list ]] && files+=(/etc/apt/sources.list)
  shopt -s nullglob
  local f
  for f in /etc/apt/sources.list.d/*.list; do files+=("$f"); done
  local deb822=(/etc/apt/sources.list.d/*.sources)
  shopt -u nullglob
  if ((${#files[@]})); then
    # One-line format: deb [options] URI SUITE COMPONENTS...
    sed -e 's/#.*//' -e 's/\[[^]]*\]//' "${files[@]}" |
      awk -v suite="$suite" '$1 == "deb" && ($3 == suite || index($3, suite "-") == 1) {
        line = $2 " " $3; for (i = 4; i <= NF; ++i) line = line " " $i; print line }'
  fi
  if ((${#deb822[@]})); then
    # deb822 format: stanzas separated by blank lines, fields "Name: values".
    awk -v suite="$suite" '
      function flush(   nu, nsu, u, s, uris, suites) {
        if (types ~ /(^| )deb( |$)/ && tolower(enabled) != "no") {
          nu = split(uri_field, uris, " "); nsu = split(suite_field, suites, " ")
          for (u = 1; u <= nu; ++u) for (s = 1; s <= nsu; ++s)
            if (suites[s] == suite || index(suites[s], suite "-") == 1)
              print uris[u] " " suites[s] " " components
        }
        types = uri_field = suite_field = components = enabled = ""
      }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      {
        name = tolower($1); sub(/:$/, "", name); value = $0; sub(/^[^:]*:[ \t]*/, "", value)
        if (name == "types") types = value
        else if (name == "uris") uri_field = value
        else if (name == "suites") suite_field = value
        else if (name == "components") components = value
        else if (name == "enabled") enabled = value
      }
      END { flush() }' "${deb822[@]}"
  fi
}
sources=$(debian_sources | sort -u)
[[ -n $sources ]] || fail "no Debian $suite source in /etc/apt/sources.list or /etc/apt/sources.list.d/"
mirror=$(awk -v suite="$suite" '$2 == suite { print $1; exit }' <<<"$sources")
[[ -n $mirror ]] || fail "no '$suite' suite among this machine's apt sources:"$'\n'"$sources"
readonly sources mirror

# --- The bare root, downloaded once ---------------------------------------------------------
start=$SECONDS
if ! command -v debootstrap >/dev/null 2>&1; then
  say "installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap \
    >/dev/null || fail "could not install debootstrap with apt-get"
fi
mkdir -p "$cache_dir" "$work_dir" "$TESSERA_FRESH_CCACHE_DIR" "$apt_archives"
root=$(mktemp -d "$work_dir/tessera-fresh.XXXXXX")
readonly root
: >"$log"

# Unmounts everything under the root and removes it; never removes anything while a mount is left.
mounts_under_root() { awk -v r="$root/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r; }
cleanup() {
  local rc=$? pid target
  trap - EXIT INT TERM HUP
  set +e
  # Processes still running inside the root (a server a test started, an interrupted build).
  for pid in /proc/[0-9]*; do
    [[ $(readlink "$pid/root" 2>/dev/null) == "$root" ]] && kill -KILL "${pid#/proc/}" 2>/dev/null
  done
  for target in $(mounts_under_root); do
    umount "$target" 2>/dev/null || umount -l "$target" 2>/dev/null
  done
  if [[ -n $(mounts_under_root) ]]; then
    echo "fresh-machine check: could not unmount $(mounts_under_root | tr '\n' ' ');" \
      "$root is left in place" >&2
    ((rc == 0)) && rc=1
  else
    rm -rf "$root"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

if [[ ! -s $tarball ]]; then
  say "creating a minimal Debian $suite root from $mirror (kept in $tarball)"
  bootstrap=$(mktemp -d "$cache_dir/bootstrap.XXXXXX")
  if ! debootstrap --variant=minbase --arch="$arch" "$suite" "$bootstrap" "$mirror" >>"$log" 2>&1; then
    rm -rf "$bootstrap"
    fail "debootstrap $suite $mirror failed; see $log"
  fi
  tar -C "$bootstrap" -cf "$tarball.partial" . && mv "$tarball.partial" "$tarball"
  rm -rf "$bootstrap"
fi
tar -C "$root" -xf "$tarball" || fail "could not unpack $tarball (remove it to download a new root)"

# --- What any installed machine has ---------------------------------------------------------
# The Debian sources of this machine (its mirror, also for updates and security), and its apt
# acquisition settings (a proxy, snapshot validity), nothing else of its configuration.
{
  echo "# The Debian sources of the machine that created this root."
  while read -r uri suite_name components; do
    echo "deb $uri $suite_name $components"
  done <<<"$sources"
} >"$root/etc/apt/sources.list"
rm -f "$root"/etc/apt/sources.list.d/*.list "$root"/etc/apt/sources.list.d/*.sources
for f in /etc/apt/apt.conf.d/*; do
  [[ -f $f ]] && grep -q '^[[:space:]]*Acquire::' "$f" && cp "$f" "$root/etc/apt/apt.conf.d/"
done
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || : >"$root/etc/resolv.conf"

mount -t proc proc "$root/proc" || fail "cannot mount /proc in $root (no mount rights?)"
mount --rbind /dev "$root/dev"
mount --make-rslave "$root/dev" 2>/dev/null || true
mount --rbind /sys "$root/sys"
mount --make-rslave "$root/sys" 2>/dev/null || true
mkdir -p "$root/root/.cache/ccache"
mount --bind "$TESSERA_FRESH_CCACHE_DIR" "$root/root/.cache/ccache"
mount --bind "$apt_archives" "$root/var/cache/apt/archives"

git clone --quiet --no-hardlinks "$repo" "$root/root/tessera" >>"$log" 2>&1 ||
  fail "git clone of $repo failed; see $log"
git -C "$root/root/tessera" checkout --quiet --detach "$commit" >>"$log" 2>&1 ||
  fail "could not check out $commit; see $log"
prepare_s=$((SECONDS - start))
say "root ready in $(minutes "$prepare_s") ($root, commit ${commit:0:12}, mirror $mirror)"

# Runs a command in the root as a new user would: a login-like clean environment, in the clone.
in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=dumb \
    LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c "cd /root/tessera && $1"
}

# --- 1. The README's first command ------------------------------------------------------------
start=$SECONDS
say "running 'bash scripts/quickstart.sh' in the root (log: $log)"
quickstart_out=$root/root/quickstart.out
set +e
in_root "bash scripts/quickstart.sh" 2>&1 | tee -a "$log" >"$quickstart_out"
quickstart_rc=${PIPESTATUS[0]}
set -e
quickstart_s=$((SECONDS - start))
tail -n 25 "$quickstart_out"
if ((quickstart_rc != 0)); then
  fail "'bash scripts/quickstart.sh' exited with $quickstart_rc after $(minutes "$quickstart_s"); see $log"
fi
# The example's predictions: one class (0, 1 or 2) for each of the six input rows, as
# "predicted_class:0  int64  [6]  0 1 2 1 0 1".
if ! grep -Eq '^predicted_class:0[[:space:]]+int64[[:space:]]+\[6\][[:space:]]+[0-2]( [0-2]){5}[[:space:]]*$' \
  "$quickstart_out"; then
  fail "'bash scripts/quickstart.sh' did not print the example's predictions (predicted_class); see $log"
fi

# --- 2. The README's second command (release build only) ---------------------------------------
start=$SECONDS
say "running 'TESSERA_SKIP_SANITIZERS=1 bash scripts/test.sh' in the root"
tests_out=$root/root/tests.out
set +e
in_root "TESSERA_SKIP_SANITIZERS=1 bash scripts/test.sh" 2>&1 | tee -a "$log" >"$tests_out"
tests_rc=${PIPESTATUS[0]}
set -e
tests_s=$((SECONDS - start))
# ctest's summary and the failures it lists.
sed -n '/tests passed\|tests failed/,$p' "$tests_out"
if ((tests_rc != 0)); then
  fail "'TESSERA_SKIP_SANITIZERS=1 bash scripts/test.sh' exited with $tests_rc after" \
    "$(minutes "$tests_s"); see $log"
fi

total=$((prepare_s + quickstart_s + tests_s))
say "passed in $(minutes "$total") (root $(minutes "$prepare_s"), quickstart.sh $(minutes "$quickstart_s")," \
  "test.sh $(minutes "$tests_s")) on commit ${commit:0:12}"
