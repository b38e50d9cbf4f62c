#!/usr/bin/env bash
# Converts every module of a real distribution kernel (Debian's
# linux-image-6.1.0-56-cloud-amd64-dbg, 1,121 modules) as split BTF on
# gobtf's own vmlinux BTF and checks each one against outside oracles:
#
#   load   the kernel verifier accepts base + split (btfload --base)
#   dups   no split type is structurally identical to a base type or to
#          another split type (btfdiff -stats -base: "duplicate classes: 0"),
#          in gobtf's output or, where that keeps copies of base types as
#          pahole does, in its output with --merge_base_copies (which the
#          verifier must accept too)
#   pahole every kind but FUNC, FUNC_PROTO and DECL_TAG equals the split BTF
#          of apt's pahole 1.24 run on the same module and the same base
#          (btfdiff -base B -ignore-kinds FUNC,FUNC_PROTO,DECL_TAG); where
#          it does not, gobtf's conversion deduplicated by pahole 1.24's own
#          libbpf (1.1.2, through btfdedup) must equal it (see check_one)
#
# and gobtf itself must exit 0 (KVER=... picks another kernel flavor of the
# release, e.g. KVER=6.1.0-56-rt-amd64). Prints a summary table and exits 1 on any
# failure. Needs root (btfload), apt-get and dpkg-deb (the first run downloads
# the 283 MB package into the cache and extracts it, about 1.7 GB), pahole
# (apt dwarves) and ../shared/tools (btfdiff, btfload).
#
#   scripts/test-modules.sh [-P JOBS] [MODULE_NAME_REGEX]
#
# Environment: GOBTF_TEST_CACHE (default ~/.cache/gobtf-test), KEEP=1 keeps
# the work directory (the path is printed).
#
# "The same way" for pahole 1.24: 1.24 predates --btf_features, so it gets
# the older flags that switch on what the kernel-build feature list does and
# 1.24 knows: --btf_gen_floats (float), --btf_encode_force (encode_force),
# --lang_exclude=rust; var, enum64, decl_tag and type_tag are on by default
# in 1.24. The 1.31 features 1.24 lacks (optimized_func, consistent_func,
# decl_tag_kfuncs, attributes) only decide which FUNCs, FUNC_PROTOs and
# DECL_TAGs are emitted, the ignored kinds. Both tools run with -j1 (the
# modules are small, and xargs runs JOBS modules at a time); both read the
# same base, gobtf's vmlinux BTF.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=2
if [ "${1:-}" = "-P" ]; then JOBS=$2; shift 2; fi
FILTER=${1:-}

# KVER picks another Debian kernel's debug package (any flavor of the
# release: the rt kernel's locks, say, give other type graphs); each has a
# folder of its own in the cache.
DEFAULT_KVER=6.1.0-56-cloud-amd64
KVER=${KVER:-$DEFAULT_KVER}
PKG=linux-image-$KVER-dbg
SHARED=${GOBTF_SHARED:-$(pwd)/../shared}
CACHE=${GOBTF_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gobtf-test}
DBG=$CACHE/dbg
[ "$KVER" = "$DEFAULT_KVER" ] || DBG=$CACHE/dbg-$KVER
ROOT=$DBG/root
MODDIR=$ROOT/usr/lib/debug/lib/modules/$KVER
VMLINUX=$ROOT/usr/lib/debug/boot/vmlinux-$KVER
TOOLS=$CACHE/tools/bin
FEATURES=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs,attributes

die() { echo "test-modules: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (btfload loads BTF into the kernel)"
command -v pahole >/dev/null || die "needs pahole (apt-get install dwarves)"
case "$(pahole --version)" in v1.24) ;; *) die "needs apt's pahole v1.24, found $(pahole --version)" ;; esac

# The package, downloaded and extracted once; the stamp marks a complete
# extraction so an interrupted one is redone.
if [ ! -e "$DBG/extracted.stamp" ]; then
  command -v dpkg-deb >/dev/null || die "needs dpkg-deb"
  mkdir -p "$DBG"
  rm -rf "$ROOT"
  deb=$(ls "$DBG"/"$PKG"_*.deb 2>/dev/null | head -1 || true)
  if [ -z "$deb" ]; then
    echo "test-modules: downloading $PKG into $DBG" >&2
    (cd "$DBG" && apt-get download "$PKG" >/dev/null 2>&1) || die "apt-get download $PKG failed (run apt-get update?)"
    deb=$(ls "$DBG"/"$PKG"_*.deb | head -1)
  fi
  echo "test-modules: extracting $deb" >&2
  dpkg-deb -x "$deb" "$ROOT"
  rm -f "$deb"
  touch "$DBG/extracted.stamp"
fi
[ -f "$VMLINUX" ] && [ -d "$MODDIR" ] || die "$ROOT is incomplete: remove $DBG/extracted.stamp and rerun"

if [ ! -x "$TOOLS/btfdiff" ] || [ ! -x "$TOOLS/btfload" ]; then
  [ -d "$SHARED/tools" ] || die "needs the shared tools in $SHARED/tools"
  cp -rT "$SHARED/tools" "$CACHE/tools" && chmod -R u+w "$CACHE/tools"
  make -s -C "$CACHE/tools" BIN=bin >/dev/null
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gobtf-modules.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then echo "test-modules: work directory $WORK" >&2; else trap 'rm -rf "$WORK"' EXIT; fi
CGO_ENABLED=0 go build -trimpath -o "$WORK/gobtf" ./cmd/gobtf

start=$(date +%s)
BASE=$WORK/vmlinux.btf
"$WORK/gobtf" -J -j"$JOBS" --btf_features=$FEATURES --lang_exclude=rust --btf_encode_detached="$BASE" "$VMLINUX" ||
  die "gobtf failed on $VMLINUX"
"$TOOLS/btfload" "$BASE" >/dev/null || die "the kernel verifier rejects gobtf's vmlinux BTF"
base_done=$(date +%s)

find "$MODDIR" -name '*.ko' | sort > "$WORK/all"
if [ -n "$FILTER" ]; then
  awk -v re="$FILTER" '{ n = $0; sub(".*/", "", n); sub("\\.ko$", "", n); if (n ~ re) print }' "$WORK/all" > "$WORK/list"
else
  cp "$WORK/all" "$WORK/list"
fi
total=$(wc -l < "$WORK/list")
[ "$total" -gt 0 ] || die "no module matches '$FILTER'"
echo "test-modules: $total modules, $JOBS at a time (base: $((base_done - start)) s)" >&2

# check_one KO: runs every check on one module and prints one line:
#   NAME GOBTF LOAD DUPS PAHOLE SECONDS
# each check field "ok", "FAIL" or "-" (not run because gobtf failed), and
# PAHOLE "libbpf112" for a difference that comes from pahole 1.24's libbpf
# (see below); the tools' output is kept in $WORK/m/NAME/ for the failures.
check_one() {
  local ko=$1 name t0 d g=ok l=- u=- p=-
  name=$(basename "$ko" .ko)
  d=$WORK/m/$name
  mkdir -p "$d"
  t0=$EPOCHREALTIME
  if "$WORK/gobtf" -J -j1 --btf_features=$FEATURES --lang_exclude=rust --btf_base "$BASE" \
      --btf_encode_detached="$d/gobtf.btf" "$ko" >"$d/gobtf.log" 2>&1; then
    l=ok; "$TOOLS/btfload" "$d/gobtf.btf" --base "$BASE" >"$d/load.log" 2>&1 || l=FAIL
    u=FAIL
    if "$TOOLS/btfdiff" -stats -examples 5 -base "$BASE" "$d/gobtf.btf" >"$d/dups.log" 2>&1 &&
       grep -q '^duplicate classes: 0 ' "$d/dups.log"; then u=ok
    elif "$WORK/gobtf" -J -j1 --merge_base_copies --btf_features=$FEATURES --lang_exclude=rust --btf_base "$BASE" \
        --btf_encode_detached="$d/merged.btf" "$ko" >>"$d/gobtf.log" 2>&1 &&
      "$TOOLS/btfload" "$d/merged.btf" --base "$BASE" >>"$d/load.log" 2>&1 &&
      "$TOOLS/btfdiff" -stats -examples 5 -base "$BASE" "$d/merged.btf" >"$d/dups.log" 2>&1 &&
      grep -q '^duplicate classes: 0 ' "$d/dups.log"; then u=ok; fi
    p=FAIL
    if pahole -J -j1 --btf_gen_floats --btf_encode_force --lang_exclude=rust --btf_base "$BASE" \
        --btf_encode_detached="$d/pahole.btf" "$ko" >"$d/pahole.log" 2>&1; then
      if "$TOOLS/btfdiff" -examples 5 -base "$BASE" -ignore-kinds FUNC,FUNC_PROTO,DECL_TAG \
          "$d/gobtf.btf" "$d/pahole.btf" >"$d/diff.log" 2>&1; then
        p=ok
      # pahole 1.24 deduplicates with libbpf 1.1.2, which differs from the
      # current libbpf gobtf follows (internal/dedup/legacy.go: a TYPEDEF is
      # merged only by exact equality of its resolved target, so a typedef
      # reaching a base FWD the module defines stays apart). Such a module
      # passes only if gobtf's own conversion, deduplicated by that same
      # libbpf 1.1.2 (btfdedup), equals pahole's output.
      elif "$WORK/gobtf" -J -j1 --skip_dedup --btf_features=$FEATURES --lang_exclude=rust --btf_base "$BASE" \
          --btf_encode_detached="$d/raw.btf" "$ko" >>"$d/gobtf.log" 2>&1 &&
        "$TOOLS/btfdedup" "$d/raw.btf" "$d/libbpf112.btf" --base "$BASE" >"$d/btfdedup.log" 2>&1 &&
        "$TOOLS/btfdiff" -examples 5 -base "$BASE" -ignore-kinds FUNC,FUNC_PROTO,DECL_TAG \
          "$d/libbpf112.btf" "$d/pahole.btf" >"$d/diff112.log" 2>&1; then
        p=libbpf112
      fi
    fi
  else
    g=FAIL
  fi
  case "$g$l$u$p" in okokokok | okokoklibbpf112) rm -rf "$d" ;; esac
  printf '%s %s %s %s %s %.1f\n' "$name" "$g" "$l" "$u" "$p" "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')"
}
export -f check_one
export WORK BASE TOOLS FEATURES

xargs -a "$WORK/list" -P "$JOBS" -I{} bash -c 'check_one "$1"' _ {} > "$WORK/results"
end=$(date +%s)

awk -v total="$total" -v wall=$((end - start)) -v basewall=$((base_done - start)) '
  { n++; cpu += $6
    if ($2 != "ok") fg++; if ($3 == "FAIL") fl++; if ($4 == "FAIL") fu++; if ($5 == "FAIL") fp++; if ($5 == "libbpf112") { n112++; l112 = l112 " " $1 }
    if ($2 != "ok" || $3 == "FAIL" || $4 == "FAIL" || $5 == "FAIL") { bad++; list = list "  " $0 "\n" } }
  END {
    printf "\n%-42s %8s %8s\n", "check", "modules", "failed"
    printf "%-42s %8d %8d\n", "gobtf -J exits 0", n, fg
    printf "%-42s %8d %8d\n", "kernel verifier accepts base + split", n - fg, fl
    printf "%-42s %8d %8d\n", "no duplicate of a base or split type", n - fg, fu
    printf "%-42s %8d %8d\n", "non-FUNC kinds equal pahole 1.24", n - fg, fp
    printf "%-42s %8d %8s\n", "  of which differ only by libbpf 1.1.2", n112, "-"
    printf "%-42s %8d %8d\n", "all checks", n, bad
    printf "\nmodules: %d of %d listed checked; time: %d s wall (vmlinux base %d s), %.0f s summed per module\n", n, total, wall, basewall, cpu
    if (n112) printf "\nequal to pahole 1.24 once gobtf'"'"'s conversion is deduplicated by libbpf 1.1.2 as pahole'"'"'s is:%s\n", l112
    if (bad) printf "\nfailures (name gobtf load dups pahole seconds):\n%s", list
    if (n != total || bad) exit 1
  }' "$WORK/results" || {
  echo "test-modules: FAILED; logs of failed modules are in $WORK/m (kept)" >&2
  trap - EXIT
  exit 1
}
echo "test-modules: PASS"
