#!/bin/sh
# Regenerates the BTF fixtures and pahole master's outputs on them.
# Usage: PAHOLE=/path/to/pahole-master ./gen.sh   (run in this directory)
# pahole master is dwarves 1436daf with libbpf 1.8.0; cases.txt lists the
# option sets, one a line (the first, empty, is no option).
set -e
: "${PAHOLE:=pahole-master}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -g -c -O0 layout.c -o "$tmp/layout.gcc.o"
clang -g -c -O0 layout.c -o "$tmp/layout.clang.o" 2>/dev/null
for cc in gcc clang; do
	"$PAHOLE" -J --btf_encode_detached=layout.$cc.btf "$tmp/layout.$cc.o"
	out=layout.$cc.master.txt
	: > "$out"
	while IFS= read -r opts; do
		printf '#### pahole -F btf %s layout.%s.btf\n' "$opts" "$cc" >> "$out"
		# shellcheck disable=SC2086
		"$PAHOLE" -F btf $opts layout.$cc.btf >> "$out" 2>&1
	done < cases.txt
done
