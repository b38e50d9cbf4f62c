#!/usr/bin/env bash
# Side-by-side benchmark of gobtf against its peers (libbpf's dedup, pahole),
# run alternately so that both see the same machine state. Prints median and
# spread of wall time, CPU time (user+sys) and peak RSS for each, and the
# ratio gobtf/peer; ends with one summary table (markdown) of the medians and
# ratios, and the machine they were taken on. Needs ../shared (the real
# inputs) and GNU time.
#
#   scripts/bench.sh [RUNS]      (default 11 runs of each)
#   BENCH_ONLY=archive scripts/bench.sh [RUNS]   (only the --archive row)
#
# Single runs on a 2-CPU VM spread by 10 to 15%; a median of 11 spreads about
# a fifth less than one of 7 (sqrt(7/11)). docs/performance.md has the method.
#
# A new comparison: measure both tools alternately, then call report; its
# rows join the summary. report NAME GOBTF_LABEL PEER_LABEL [METRICS], where
# METRICS lists the summary's rows for it: wall (default), cpu, rss. The
# summary also goes to $BENCH_SUMMARY when set (make bench prints it last).
set -euo pipefail
export LC_ALL=C # EPOCHREALTIME and awk read "." as the decimal point
cd "$(dirname "$0")/.."
RUNS=${1:-${RUNS:-11}}
. scripts/corpus.sh
TIME=/usr/bin/time
[ -d "$SHARED/reference" ] || { echo "bench: needs the shared data folder $SHARED" >&2; exit 1; }
[ -x "$TIME" ] || { echo "bench: needs GNU time (apt-get install time)" >&2; exit 1; }

CGO_ENABLED=0 go build -trimpath -o bin/gobtf ./cmd/gobtf
if [ ! -x "$CACHE/tools/bin/btfdedup" ]; then
  cp -rT "$SHARED/tools" "$CACHE/tools" && chmod -R u+w "$CACHE/tools"
  make -s -C "$CACHE/tools" BIN=bin >/dev/null
fi
UNDEDUP=$(unxz_cached "$SHARED/reference/vmlinux-6.1.0-56-cloud-amd64.undeduped.btf.xz")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
RESULTS=$WORK/results
SUMMARY=$WORK/summary
: > "$SUMMARY"

# measure LABEL CMD...: one run, appends "LABEL wall cpu rss_kb" to RESULTS.
# GNU time gives CPU time and peak RSS; its wall time (%e) counts in 10 ms
# steps, 5% of a module's run, so the wall time is taken from bash's
# EPOCHREALTIME (microseconds) around it instead. That includes the start of
# time itself (about a millisecond), the same for every tool measured.
measure() {
  local label=$1; shift
  local t0=$EPOCHREALTIME
  "$TIME" -f "%U %S %M" -o "$WORK/t" "$@" >/dev/null 2>"$WORK/err" || {
    echo "bench: $label failed:" >&2; cat "$WORK/err" >&2; exit 1; }
  local t1=$EPOCHREALTIME
  awk -v l="$label" -v t0="$t0" -v t1="$t1" '{printf "%s %.4f %.2f %s\n", l, t1 - t0, $1+$2, $3}' "$WORK/t" >> "$RESULTS"
}

# report NAME GOBTF_LABEL PEER_LABEL [METRICS [ROW]]: prints medians, spreads
# and ratios, and appends a summary row per metric (wall, cpu, rss; default
# wall), named ROW (default NAME).
report() {
  awk -v a="$2" -v b="$3" -v name="$1" -v metrics="${4:-wall}" -v row="${5:-$1}" -v summary="$SUMMARY" '
    function med(arr, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (arr[j] < arr[i]) { t = arr[i]; arr[i] = arr[j]; arr[j] = t }
      return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2 }
    function lo(arr, n,   i, m) { m = arr[1]; for (i = 2; i <= n; i++) if (arr[i] < m) m = arr[i]; return m }
    function hi(arr, n,   i, m) { m = arr[1]; for (i = 2; i <= n; i++) if (arr[i] > m) m = arr[i]; return m }
    $1 == a { na++; aw[na] = $2; ac[na] = $3; ar[na] = $4 / 1024 }
    $1 == b { nb++; bw[nb] = $2; bc[nb] = $3; br[nb] = $4 / 1024 }
    END {
      printf "\n== %s (%d runs each)\n", name, na
      printf "%-28s %25s %22s %22s\n", "", "wall s (min-max)", "cpu s (min-max)", "peak RSS MB (min-max)"
      printf "%-28s %9.3f (%6.3f-%6.3f) %8.2f (%5.2f-%5.2f) %8.0f (%5.0f-%5.0f)\n", a, mw = med(aw, na), lo(aw, na), hi(aw, na), mc = med(ac, na), lo(ac, na), hi(ac, na), mr = med(ar, na), lo(ar, na), hi(ar, na)
      printf "%-28s %9.3f (%6.3f-%6.3f) %8.2f (%5.2f-%5.2f) %8.0f (%5.0f-%5.0f)\n", b, pw = med(bw, nb), lo(bw, nb), hi(bw, nb), pc = med(bc, nb), lo(bc, nb), hi(bc, nb), pr = med(br, nb), lo(br, nb), hi(br, nb)
      printf "%-28s %9.3fx %20.2fx %21.2fx\n", "ratio " a "/" b, mw / pw, mc / pc, mr / pr
      n = split(metrics, m, " ")
      for (i = 1; i <= n; i++) {
        if (m[i] == "wall") printf "| %s, wall | %.3f s | %.3f s | %.3fx |\n", row, mw, pw, mw / pw >> summary
        else if (m[i] == "cpu") printf "| %s, CPU | %.2f s | %.2f s | %.3fx |\n", row, mc, pc, mc / pc >> summary
        else if (m[i] == "rss") printf "| %s, peak RSS | %.0f MB | %.0f MB | %.2fx |\n", row, mr, pr, mr / pr >> summary
      }
    }' "$RESULTS"
}

# summary: the table of every report's rows, ready to paste, and the machine.
summary() {
  local model
  model=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
  {
    echo "== summary ($RUNS runs each, medians; ratio gobtf/peer)"
    echo
    echo "| measurement | gobtf median | peer median | ratio |"
    echo "|---|---|---|---|"
    cat "$SUMMARY"
    echo
    echo "Machine: $(nproc) CPUs, ${model:-unknown model}, Linux $(uname -r)."
  } > "$WORK/summary.md"
  echo
  cat "$WORK/summary.md"
  if [ -n "${BENCH_SUMMARY:-}" ]; then cp "$WORK/summary.md" "$BENCH_SUMMARY"; fi
}

# gen min_core_btf --archive on the bench archive (scripts/btfhub-bench-archive.sh:
# Debian 12's 6.1 kernels, BTFHub's layout) against the shell loop it
# replaces (scripts/btfgen-loop.sh: extract, bpftool, delete, pahole -E
# comparisons, links), on 20 and on 40 kernels (the first by kernel name, so
# both architectures and every ABI), gobtf with -j2: goal 3x faster, and a
# peak RSS that does not grow with the kernels. Fresh output trees each run;
# then the outputs are checked (each the one-kernel command's bytes and
# bpftool's, duplicates hard links) and a second run must write nothing.
# Skipped when the archive has not been made. BENCH_ONLY=archive runs only
# this row.
bench_archive() {
  local archive=$CACHE/btfhub-bench/archive btfdir=$CACHE/btfhub-bench/btf
  if [ ! -d "$archive" ] || [ "$(find "$archive" -name '*.btf.tar.xz' | wc -l)" -lt 40 ]; then
    echo "bench: no bench archive of 40 kernels in $archive (scripts/btfhub-bench-archive.sh makes it); skipping the --archive comparison" >&2
    return 0
  fi
  if ! command -v bpftool >/dev/null || ! command -v pahole >/dev/null || ! command -v clang-19 >/dev/null || [ ! -f /usr/include/bpf/bpf_core_read.h ]; then
    echo "bench: bpftool, pahole, clang-19 or libbpf-dev missing; skipping the --archive comparison" >&2
    return 0
  fi
  local objdir=$WORK/acore objs=() p n i
  mkdir -p "$objdir"
  bin/gobtf dump --format c "$SHARED/reference/vmlinux-6.1.0-56-cloud-amd64.kbuild.btf" > "$objdir/vmlinux.h"
  for p in fields types flavors narrow exists; do
    clang-19 -g -O2 -target bpf -D__TARGET_ARCH_x86 -I"$objdir" -c "testdata/core/$p.bpf.c" -o "$objdir/$p.o"
    objs+=("$objdir/$p.o")
  done
  local aruns=$(( RUNS < 3 ? RUNS : 3 ))
  for n in 20 40; do
    local tree=$WORK/archive$n
    find "$archive" -name '*.btf.tar.xz' | awk -F/ '{ print $NF "\t" $0 }' | sort | awk -F"\t" -v n="$n" 'NR <= n { print $2 }' |
      while IFS= read -r f; do
        mkdir -p "$tree/$(dirname "${f#"$archive"/}")"
        ln "$f" "$tree/${f#"$archive"/}"
      done
    for i in $(seq "$aruns"); do
      rm -rf "$WORK/ga$n" "$WORK/la$n"
      measure "gobtf-archive-$n" bin/gobtf gen min_core_btf --archive -j2 "$tree" "$WORK/ga$n" "${objs[@]}"
      measure "loop-archive-$n" bash scripts/btfgen-loop.sh "$tree" "$WORK/la$n" "${objs[@]}"
    done
    report "gen min_core_btf --archive -j2 on $n kernels of the bench archive vs the extract/bpftool/pahole -E loop" \
      "gobtf-archive-$n" "loop-archive-$n" "wall rss" "\`gen min_core_btf --archive\` $n kernels vs the shell loop"
  done
  # The 40-kernel outputs: each the one-kernel command's bytes and
  # bpftool's, duplicates hard links; a second run writes nothing.
  local out=$WORK/ga40 f rel k
  while IFS= read -r f; do
    rel=${f#"$WORK/archive40/"}
    k=$(basename "$rel" .btf.tar.xz)
    case $rel in */arm64/*) p=arm64 ;; *) p=x86_64 ;; esac
    bin/gobtf gen min_core_btf "$btfdir/$p/$k.btf" "$WORK/one.btf" "${objs[@]}" 2>/dev/null
    bpftool gen min_core_btf "$btfdir/$p/$k.btf" "$WORK/bpftool.btf" "${objs[@]}"
    cmp -s "$WORK/one.btf" "$out/$(dirname "$rel")/$k.btf" || { echo "bench: --archive: $rel: not the one-kernel command's output" >&2; exit 1; }
    cmp -s "$WORK/bpftool.btf" "$out/$(dirname "$rel")/$k.btf" || { echo "bench: --archive: $rel: not bpftool's output" >&2; exit 1; }
  done < <(find "$WORK/archive40" -name '*.btf.tar.xz')
  local files inodes
  files=$(find "$out" -type f | wc -l)
  inodes=$(find "$out" -type f -printf '%i\n' | sort -u | wc -l)
  local again
  again=$(bin/gobtf gen min_core_btf --archive --json -j2 "$WORK/archive40" "$out" "${objs[@]}" | tail -1)
  case $again in *'"written":0,'*'"linked":0,'*) ;; *) echo "bench: --archive: the second run wrote: $again" >&2; exit 1 ;; esac
  echo "bench: --archive on 40 kernels: $files outputs, each bpftool's bytes; $inodes unique (the rest hard links); the loop linked $(find "$WORK/la40" -type f -printf '%i\n' | sort -u | wc -l) unique by pahole -E text; a second run wrote nothing"
}

# The data pretty-printer (--prettify) on a generated input of about
# $PRETTIFY_MB MB (default 1024): testdata/prettify's records section (40
# records of 8 types, variable sizes, type= naming each record's struct)
# copied end to end, against pahole master ($PAHOLE_MASTER; skipped without
# it: apt's pahole 1.24 prints these records differently). At most 3 runs
# each: pahole master takes minutes on 1 GB. BENCH_ONLY=prettify runs this
# row alone.
bench_prettify() {
  if [ -z "${PAHOLE_MASTER:-}" ]; then
    echo "bench: PAHOLE_MASTER unset: skipping the --prettify comparison (pahole master only)"
    return
  fi
  local fix=testdata/prettify mb=${PRETTIFY_MB:-1024} off size copies
  off=$(od -An -t u8 -j 16 -N 8 "$fix/records.bin" | tr -d ' ')
  size=$(od -An -t u8 -j 24 -N 8 "$fix/records.bin" | tr -d ' ')
  tail -c +$((off + 1)) "$fix/records.bin" | head -c "$size" > "$WORK/rec"
  copies=$(( mb * 1024 * 1024 / size ))
  cp "$WORK/rec" "$WORK/rec.big"
  while [ "$(stat -c %s "$WORK/rec.big")" -lt $(( copies * size )) ]; do
    cat "$WORK/rec.big" "$WORK/rec.big" > "$WORK/rec.2" && mv "$WORK/rec.2" "$WORK/rec.big"
  done
  head -c $(( copies * size )) "$WORK/rec.big" > "$WORK/prettify.bin" && rm -f "$WORK/rec.big"
  local ty='rec_header(sizeof=size,type=type,type_enum=rec_type+rec_more)'
  echo "bench: --prettify of $copies copies of the fixture's records ($(( copies * size )) bytes, $(( copies * 40 )) records)"
  local pruns=$(( RUNS < 3 ? RUNS : 3 ))
  for i in $(seq "$pruns"); do
    measure gobtf-prettify bin/gobtf -F btf -C "$ty" --prettify "$WORK/prettify.bin" "$fix/records.btf"
    measure pahole-prettify "$PAHOLE_MASTER" -F btf -C "$ty" --prettify "$WORK/prettify.bin" "$fix/records.btf"
  done
  report "--prettify of ${mb} MB of records (pahole -C 'rec_header(sizeof=size,type=type,...)' --prettify)" gobtf-prettify pahole-prettify "wall rss" "\`--prettify\` ${mb} MB of records vs pahole master"
  rm -f "$WORK/prettify.bin"
}

# pahole --compile (compilable C for every type, pahole's format) of the
# vmlinux BTF, against pahole master only: apt's pahole 1.24 prints another
# output, which does not compile. BENCH_ONLY=compile runs this row alone.
compile_row() {
  if [ -z "${PAHOLE_MASTER:-}" ]; then
    echo "bench: PAHOLE_MASTER unset: skipping the --compile comparison"
    return
  fi
  local cbtf="$SHARED/reference/vmlinux-6.1.0-56-cloud-amd64.kbuild.btf"
  for i in $(seq "$RUNS"); do
    measure gobtf-compile-btf bin/gobtf --compile "$cbtf"
    measure pahole-compile-btf "$PAHOLE_MASTER" --compile "$cbtf"
  done
  report "--compile of the vmlinux BTF (pahole --compile)" gobtf-compile-btf pahole-compile-btf wall "\`--compile\`, vmlinux BTF, vs pahole master"
}
case "${BENCH_ONLY:-}" in
prettify) bench_prettify ;;
compile) compile_row ;;
archive) bench_archive ;;
esac
if [ -n "${BENCH_ONLY:-}" ]; then
  summary
  exit 0
fi

echo "bench: $RUNS alternating runs each; inputs from $SHARED"
# Other work on the machine skews wall times (CPU times less so): say how busy it was.
echo "bench: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"

# Deduplication alone: the 3.4 M-type one-to-one vmlinux BTF.
for i in $(seq "$RUNS"); do
  measure gobtf-dedup bin/gobtf dedup "$UNDEDUP" "$WORK/g.btf"
  measure libbpf-btfdedup "$CACHE/tools/bin/btfdedup" "$UNDEDUP" "$WORK/l.btf"
done
report "dedup of the 3,408,561-type vmlinux BTF" gobtf-dedup libbpf-btfdedup wall "dedup of the vmlinux BTF vs libbpf"
bin/gobtf dedup --stats "$UNDEDUP" "$WORK/g.btf" 2>&1 >/dev/null | sed 's/^/  gobtf: /' || true

# The whole encoding of the vmlinux, both with -j2. gobtf gets the kernel-build
# flags of ../shared/reference/README.md (KFLAGS, what Linux 6.7+ passes to
# pahole >= 1.30, and what gobtf's output is checked against). pahole 1.24
# (apt's version, the peer measured here) has no --btf_features, so it gets
# what Linux 6.1's pahole-flags.sh gives that version; with it pahole does
# less than gobtf does with KFLAGS (no kfunc decl tags, no consistency checks
# of function prototypes).
if command -v pahole >/dev/null; then
  VMLINUX=$(unxz_cached "$SHARED/corpus/vmlinux-6.1.0-56-cloud-amd64.xz")
  KFLAGS="-j2 --btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs,attributes --lang_exclude=rust"
  PFLAGS="-j2 --btf_gen_floats --lang_exclude=rust"
  echo "bench: gobtf -J $KFLAGS"
  echo "bench: pahole $(pahole --version) -J $PFLAGS"
  for i in $(seq "$RUNS"); do
    measure gobtf-J-vmlinux bin/gobtf -J $KFLAGS --btf_encode_detached="$WORK/g.vmlinux.btf" "$VMLINUX"
    measure pahole-J-vmlinux pahole -J $PFLAGS --btf_encode_detached="$WORK/p.vmlinux.btf" "$VMLINUX"
  done
  report "pahole -J on the vmlinux (-j2)" gobtf-J-vmlinux pahole-J-vmlinux "wall rss" "\`-J\` vmlinux vs pahole"
  bin/gobtf -J $KFLAGS --stats --btf_encode_detached="$WORK/g.vmlinux.btf" "$VMLINUX" 2>&1 >/dev/null | sed 's/^/  gobtf: /'
  # -j1 and -j2 alternate too, so that both meet the same machine state.
  for i in $(seq "$RUNS"); do
    measure gobtf-J-vmlinux-j1 bin/gobtf -J ${KFLAGS/-j2/-j1} --btf_encode_detached="$WORK/g.vmlinux.btf" "$VMLINUX"
    measure gobtf-J-vmlinux-j2 bin/gobtf -J $KFLAGS --btf_encode_detached="$WORK/g.vmlinux.btf" "$VMLINUX"
  done
  report "gobtf -j1 against -j2 on the vmlinux (ratio > 1: -j2 is faster)" gobtf-J-vmlinux-j1 gobtf-J-vmlinux-j2 wall "\`-J\` vmlinux, \`-j1\` vs \`-j2\`"

  XFS=$(unxz_cached "$SHARED/corpus/modules/xfs.ko.xz")
  BASE="$SHARED/reference/vmlinux-6.1.0-56-cloud-amd64.kbuild.btf"
  for i in $(seq "$RUNS"); do
    measure gobtf-J-xfs bin/gobtf -J $KFLAGS --btf_base "$BASE" --btf_encode_detached="$WORK/g.xfs.btf" "$XFS"
    measure pahole-J-xfs pahole -J $PFLAGS --btf_base "$BASE" --btf_encode_detached="$WORK/p.xfs.btf" "$XFS"
  done
  report "xfs.ko as split BTF on the vmlinux BTF (-j2)" gobtf-J-xfs pahole-J-xfs wall "\`-J\` xfs.ko vs pahole"

  # A kernel build encodes every module on its own, most of them small:
  # there the fixed cost of a run (reading and preparing the base BTF)
  # decides. nls_utf8.ko is the smallest of the shared modules.
  NLS=$(unxz_cached "$SHARED/corpus/modules/nls_utf8.ko.xz")
  for i in $(seq "$RUNS"); do
    measure gobtf-J-nls_utf8 bin/gobtf -J $KFLAGS --btf_base "$BASE" --btf_encode_detached="$WORK/g.nls.btf" "$NLS"
    measure pahole-J-nls_utf8 pahole -J $PFLAGS --btf_base "$BASE" --btf_encode_detached="$WORK/p.nls.btf" "$NLS"
  done
  report "nls_utf8.ko (a small module) as split BTF on the vmlinux BTF (-j2)" gobtf-J-nls_utf8 pahole-J-nls_utf8 wall "\`-J\` nls_utf8.ko vs pahole"
else
  echo "bench: pahole not installed; skipping the -J comparisons" >&2
fi

# The C header (vmlinux.h) of the vmlinux BTF, against bpftool's (goal: 0.5x).
if command -v bpftool >/dev/null; then
  KBUILD="$SHARED/reference/vmlinux-6.1.0-56-cloud-amd64.kbuild.btf"
  for i in $(seq "$RUNS"); do
    measure gobtf-dump-c bin/gobtf dump --format c "$KBUILD"
    measure bpftool-dump-c bpftool btf dump file "$KBUILD" format c
  done
  report "C header of the vmlinux BTF (dump --format c)" gobtf-dump-c bpftool-dump-c wall "vmlinux.h (\`dump --format c\`) vs bpftool"
else
  echo "bench: bpftool not installed; skipping the C header comparison" >&2
fi

# gen min_core_btf: the vmlinux BTF minimized for testdata/core's CO-RE
# programs (built here with clang 19 against gobtf's vmlinux.h; the ones
# bpftool 7.1 succeeds on), against bpftool (goal: no slower). The outputs
# must be the same bytes.
if command -v bpftool >/dev/null && command -v clang-19 >/dev/null && [ -f /usr/include/bpf/bpf_core_read.h ]; then
  KBUILD="$SHARED/reference/vmlinux-6.1.0-56-cloud-amd64.kbuild.btf"
  mkdir -p "$WORK/core"
  bin/gobtf dump --format c "$KBUILD" > "$WORK/core/vmlinux.h"
  COREOBJS=()
  for p in fields types flavors narrow exists; do
    clang-19 -g -O2 -target bpf -D__TARGET_ARCH_x86 -I"$WORK/core" -c "testdata/core/$p.bpf.c" -o "$WORK/core/$p.o"
    COREOBJS+=("$WORK/core/$p.o")
  done
  for i in $(seq "$RUNS"); do
    measure gobtf-min-core-btf bin/gobtf gen min_core_btf "$KBUILD" "$WORK/g.min.btf" "${COREOBJS[@]}"
    measure bpftool-min-core-btf bpftool gen min_core_btf "$KBUILD" "$WORK/b.min.btf" "${COREOBJS[@]}"
  done
  cmp -s "$WORK/g.min.btf" "$WORK/b.min.btf" || { echo "bench: gen min_core_btf: gobtf's output differs from bpftool's" >&2; exit 1; }
  report "minimized CO-RE BTF of the vmlinux BTF for testdata/core's programs (gen min_core_btf)" gobtf-min-core-btf bpftool-min-core-btf wall "\`gen min_core_btf\` (vmlinux, testdata/core) vs bpftool"
else
  echo "bench: bpftool, clang-19 or libbpf-dev missing; skipping the gen min_core_btf comparison" >&2
fi

# pahole's layout view (gobtf without -J): every struct and union of the
# vmlinux, from its BTF and from its DWARF. The peer is pahole master
# ($PAHOLE_MASTER, not in CI) when given, else apt's pahole, whose output
# differs (it is 1.24).
LAYOUT_PEER=${PAHOLE_MASTER:-$(command -v pahole || true)}
if [ -n "$LAYOUT_PEER" ]; then
  [ -n "${PAHOLE_MASTER:-}" ] || echo "bench: PAHOLE_MASTER unset: layout view compared with apt's pahole $(pahole --version), not master"
  LBTF="$SHARED/reference/vmlinux-6.1.0-56-cloud-amd64.kbuild.btf"
  for i in $(seq "$RUNS"); do
    measure gobtf-layout-btf bin/gobtf -F btf "$LBTF"
    measure pahole-layout-btf "$LAYOUT_PEER" -F btf "$LBTF"
  done
  report "layout view of every struct from the vmlinux BTF (pahole -F btf)" gobtf-layout-btf pahole-layout-btf wall "layout view, every struct from BTF, vs pahole"
  LVMLINUX=$(unxz_cached "$SHARED/corpus/vmlinux-6.1.0-56-cloud-amd64.xz")
  for i in $(seq "$RUNS"); do
    measure gobtf-layout-dwarf bin/gobtf -F dwarf "$LVMLINUX"
    measure pahole-layout-dwarf "$LAYOUT_PEER" -F dwarf "$LVMLINUX"
  done
  report "layout view of every struct from the vmlinux DWARF (pahole -F dwarf)" gobtf-layout-dwarf pahole-layout-dwarf "wall rss" "layout view, every struct from DWARF, vs pahole"
  # -P (packable structs) over the whole vmlinux. pahole's reorganization of
  # the 6.1 pglist_data never ends: whole, it is timed once against a limit;
  # side by side, both tools leave pglist_data out (-x pglist_data).
  PRUNS=$(( RUNS < 5 ? RUNS : 5 ))
  for i in $(seq "$PRUNS"); do
    measure gobtf-packable-whole bin/gobtf -F dwarf -P "$LVMLINUX"
    measure gobtf-packable-dwarf bin/gobtf -F dwarf -P -x pglist_data "$LVMLINUX"
    measure pahole-packable-dwarf "$LAYOUT_PEER" -F dwarf -P -x pglist_data "$LVMLINUX"
  done
  report "-P over the vmlinux DWARF, pglist_data left out (pahole -F dwarf -P -x pglist_data)" gobtf-packable-dwarf pahole-packable-dwarf wall "\`-P\` over the vmlinux DWARF (\`-x pglist_data\`), vs pahole"
  PLIMIT=${PACKABLE_LIMIT:-120}
  t0=$EPOCHREALTIME
  rc=0; timeout "$PLIMIT" "$LAYOUT_PEER" -F dwarf -P "$LVMLINUX" >/dev/null 2>&1 || rc=$?
  ptime=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  gwhole=$(awk '$1 == "gobtf-packable-whole" { print $2 }' "$RESULTS" | sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] }')
  if [ "$rc" = 124 ]; then
    echo "-P over the whole vmlinux DWARF: gobtf $gwhole s (median of $PRUNS); pahole did not finish in $PLIMIT s"
    printf '| `-P` over the whole vmlinux DWARF, vs pahole | %s s | not done in %s s | < %s |\n' "$gwhole" "$PLIMIT" \
      "$(awk -v g="$gwhole" -v p="$PLIMIT" 'BEGIN { printf "%.4fx", g / p }')" >> "$SUMMARY"
  else
    echo "-P over the whole vmlinux DWARF: gobtf $gwhole s; pahole $ptime s (exit $rc)"
    printf '| `-P` over the whole vmlinux DWARF, vs pahole | %s s | %s s | %s |\n' "$gwhole" "$ptime" \
      "$(awk -v g="$gwhole" -v p="$ptime" 'BEGIN { printf "%.3fx", g / p }')" >> "$SUMMARY"
  fi
fi
compile_row
# btf merge: the super BTF of the vmlinux BTF and xfs's split BTF, against
# libbpf 1.8 (btfmerge: btf__add_btf of both, btf__dedup), whose file it
# writes byte for byte.
if [ -x "$CACHE/tools/bin/btfmerge" ]; then
  KBUILD="$SHARED/reference/vmlinux-6.1.0-56-cloud-amd64.kbuild.btf"
  MXFS="$SHARED/reference/modules/xfs.btf"
  for i in $(seq "$RUNS"); do
    measure gobtf-btf-merge bin/gobtf btf merge "$WORK/g.super.btf" "$KBUILD" "$MXFS"
    measure libbpf-btfmerge "$CACHE/tools/bin/btfmerge" "$WORK/l.super.btf" "$KBUILD" "$MXFS"
  done
  report "super BTF of the vmlinux BTF and xfs (btf merge) vs libbpf 1.8" gobtf-btf-merge libbpf-btfmerge "wall rss" "\`btf merge\` vmlinux + xfs vs libbpf"
fi

# gobtf check on a whole kernel (the vmlinux and the 1,121 modules of the
# kernel make test-modules downloads, as Debian built them) against loading
# each file's BTF through btfload (the kernel verifier, as root), two at a
# time, as gobtf checks on two cores. Skipped without that download or root.
DBG=$CACHE/dbg/root/usr/lib/debug
DVMLINUX=$DBG/boot/vmlinux-6.1.0-56-cloud-amd64
DMODS=$DBG/lib/modules/6.1.0-56-cloud-amd64
if [ -f "$DVMLINUX" ] && [ -d "$DMODS" ] && [ "$(id -u)" = 0 ] && [ -x "$CACHE/tools/bin/btfload" ]; then
  objcopy --dump-section .BTF="$WORK/dbg-vmlinux.btf" "$DVMLINUX" "$WORK/dbg-vmlinux.tmp" && rm -f "$WORK/dbg-vmlinux.tmp"
  find "$DMODS" -name '*.ko' | sort > "$WORK/dbg-modules"
  printf '%s\n' '#!/bin/bash' \
    "\"$CACHE/tools/bin/btfload\" \"$WORK/dbg-vmlinux.btf\" >/dev/null || exit 1" \
    "xargs -a \"$WORK/dbg-modules\" -P 2 -I{} \"$CACHE/tools/bin/btfload\" {} --base \"$WORK/dbg-vmlinux.btf\" >/dev/null" \
    > "$WORK/btfload-all.sh"
  chmod +x "$WORK/btfload-all.sh"
  CRUNS=$(( RUNS < 3 ? RUNS : 3 ))
  for i in $(seq "$CRUNS"); do
    measure gobtf-check-kernel bin/gobtf check -j2 "$DVMLINUX" "$DMODS"
    measure btfload-each-file "$WORK/btfload-all.sh"
  done
  report "gobtf check on Debian's 6.1 cloud kernel (vmlinux + 1,121 modules) vs btfload on each file" gobtf-check-kernel btfload-each-file wall "\`gobtf check\` vmlinux + 1,121 modules vs btfload each"
fi
bench_prettify
bench_archive
echo
echo "bench: load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
summary
