#!/usr/bin/env bash
# The shell loop "gobtf gen min_core_btf --archive" replaces, as projects that
# ship tailored BTF run it over a BTFHub archive: for each
# <kernel>.btf.tar.xz under SRC_DIR, extract it to disk, run
# "bpftool gen min_core_btf" on it into OUT_DIR at the same relative path,
# delete the extracted file; then find identical outputs by comparing the
# text of "pahole -E" of each output with each earlier output kept, and
# replace each duplicate by a hard link to the first (ln -f). make bench
# (scripts/bench.sh) times it against gobtf.
#
#   scripts/btfgen-loop.sh SRC_DIR OUT_DIR OBJECT...
#
# Needs tar, xz, bpftool and pahole. Exits at the first failure.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 SRC_DIR OUT_DIR OBJECT..." >&2; exit 2; }
src=$1 out=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Minimize each kernel: extract, bpftool, delete.
outputs=()
while IFS= read -r archive; do
  rel=${archive#"$src"/}
  dir=$(dirname "$rel")
  kernel=$(basename "$rel" .btf.tar.xz)
  mkdir -p "$out/$dir"
  tar -xJf "$archive" -C "$tmp"
  bpftool gen min_core_btf "$tmp/$kernel.btf" "$out/$dir/$kernel.btf" "$@"
  rm -f "$tmp/$kernel.btf"
  outputs+=("$out/$dir/$kernel.btf")
done < <(find "$src" -name '*.btf.tar.xz' | sort)

# Deduplicate: compare each output's pahole -E text with each earlier one
# kept; a duplicate becomes a hard link to the first.
kept=()
for f in "${outputs[@]}"; do
  pahole -F btf -E "$f" > "$tmp/this.txt"
  dup=
  for k in "${kept[@]}"; do
    pahole -F btf -E "$k" > "$tmp/kept.txt"
    if diff -q "$tmp/this.txt" "$tmp/kept.txt" >/dev/null; then
      dup=$k
      break
    fi
  done
  if [ -n "$dup" ]; then
    ln -f "$dup" "$f"
  else
    kept+=("$f")
  fi
done
echo "btfgen-loop: ${#outputs[@]} kernels, ${#kept[@]} unique outputs"
