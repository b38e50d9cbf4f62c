#!/bin/sh
# Regenerates the fixtures and pahole master's outputs on them.
# Usage: PAHOLE=/path/to/pahole-master ./gen.sh   (run in this directory)
# pahole master is dwarves 1436daf with libbpf 1.8.0; cases.txt lists the
# option sets, one a line (the first, empty, is no option), run on the BTF
# (layout.CC.btf, encoded by pahole from the object) and on the DWARF
# (layout.CC.o) of layout.c as gcc and clang compile it.
set -e
: "${PAHOLE:=pahole-master}"
gcc -g -c -O0 layout.c -o layout.gcc.o
clang -g -c -O0 layout.c -o layout.clang.o 2>/dev/null
for cc in gcc clang; do
	"$PAHOLE" -J --btf_encode_detached=layout.$cc.btf layout.$cc.o
	for fmt in btf dwarf; do
		in=layout.$cc.btf
		[ $fmt = dwarf ] && in=layout.$cc.o
		out=layout.$cc.$fmt.master.txt
		: > "$out"
		while IFS= read -r opts; do
			printf '#### pahole -F %s %s %s\n' "$fmt" "$opts" "$in" >> "$out"
			# shellcheck disable=SC2086
			"$PAHOLE" -F $fmt $opts "$in" >> "$out" 2>&1
		done < cases.txt
	done
done
