#!/bin/sh
# Regenerates reorg.c's objects and BTF and pahole master's outputs on them
# for the reorganize options (-R, -S, -P, -w), one option set a line in
# reorg_cases.txt, run on the BTF (reorg.CC.btf, encoded by pahole from the
# object) and on the DWARF (reorg.CC.o) as gcc and clang compile reorg.c.
# Each case runs under "timeout 20"; its output (standard error, then
# standard output, as the printing tests of cmd/gobtf join them) follows a "#### pahole -F FMT OPTS IN" heading in
# reorg.CC.FMT.master.txt. reorg_forever.CC.o and .btf are reorg.c built
# with -DREORG_FOREVER: pahole's -R and -P never end on them (no outputs).
# The objects are built with
# -fdebug-prefix-map so that the file names in them (-P -a prints one) do
# not depend on the directory.
#
# With the argument "shared" it writes reorg_shared.sha256 instead, from
# the shared kernel BTF ($SHARED/reference, see internal/testutil) and the
# decompressed corpus ($CORPUS):
#   SHA256 NAME          pahole -F btf -R -C NAME kbuild.btf, for every
#                        struct name that -H 1 -s lists (structs with holes)
#   TIMEOUT NAME         the same, still running after $REORG_TIMEOUT s
#                        (default 3): pahole's reorganize never ends there
#   SHA256 module:M -P   pahole -F btf -P --btf_base kbuild.btf modules/M.btf
#   SHA256 dwarf:M -P    pahole -F dwarf -P $CORPUS/M.ko
# (TIMEOUT instead of the sum when -P runs past 120 s). Each sum is of the
# standard output followed by the standard error.
#
# Usage (in this directory; pahole master is dwarves 1436daf, libbpf 1.8.0):
#   PAHOLE=/path/to/pahole-master ./gen_reorg.sh
#   PAHOLE=/path/to/pahole-master SHARED=/path/to/shared CORPUS=/path/to/corpus \
#       ./gen_reorg.sh shared
set -e
: "${PAHOLE:=pahole-master}"
: "${REORG_TIMEOUT:=3}"

tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.out" "$tmp.err"' EXIT

if [ "$1" = shared ]; then
	base=$SHARED/reference/vmlinux-6.1.0-56-cloud-amd64.kbuild.btf
	"$PAHOLE" -F btf -H 1 -s "$base" | cut -f1 | LC_ALL=C sort -u >"$tmp"
	{
		while IFS= read -r name; do
			rc=0
			timeout "$REORG_TIMEOUT" "$PAHOLE" -F btf -R -C "$name" "$base" >"$tmp.out" 2>"$tmp.err" || rc=$?
			if [ $rc = 124 ]; then
				echo "TIMEOUT $name"
				continue
			fi
			printf '%s %s\n' "$(cat "$tmp.out" "$tmp.err" | sha256sum | cut -d' ' -f1)" "$name"
		done <"$tmp"
		for m in nf_conntrack nls_utf8 tcp_bbr virtio_blk virtio_net xfs; do
			for input in "module:$m" "dwarf:$m"; do
				if [ "${input%%:*}" = module ]; then
					set -- -F btf -P --btf_base "$base" "$SHARED/reference/modules/$m.btf"
				else
					set -- -F dwarf -P "$CORPUS/$m.ko"
				fi
				rc=0
				timeout 120 "$PAHOLE" "$@" >"$tmp.out" 2>"$tmp.err" || rc=$?
				if [ $rc = 124 ]; then
					echo "TIMEOUT $input -P"
					continue
				fi
				printf '%s %s -P\n' "$(cat "$tmp.out" "$tmp.err" | sha256sum | cut -d' ' -f1)" "$input"
			done
		done
	} >reorg_shared.sha256
	exit 0
fi

for cc in gcc clang; do
	$cc -g -c -O0 -fdebug-prefix-map="$PWD"=. reorg.c -o reorg.$cc.o
	$cc -g -c -O0 -fdebug-prefix-map="$PWD"=. -DREORG_FOREVER reorg.c -o reorg_forever.$cc.o
	"$PAHOLE" -J --btf_encode_detached=reorg_forever.$cc.btf reorg_forever.$cc.o
	"$PAHOLE" -J --btf_encode_detached=reorg.$cc.btf reorg.$cc.o
	for fmt in btf dwarf; do
		in=reorg.$cc.btf
		[ $fmt = dwarf ] && in=reorg.$cc.o
		out=reorg.$cc.$fmt.master.txt
		: >"$out"
		while IFS= read -r opts; do
			printf '#### pahole -F %s %s %s\n' "$fmt" "$opts" "$in" >>"$out"
			# shellcheck disable=SC2086
			rc=0
			timeout 20 "$PAHOLE" -F $fmt $opts "$in" >"$tmp.out" 2>"$tmp.err" || rc=$?
			if [ $rc = 124 ]; then
				echo "gen_reorg.sh: pahole -F $fmt $opts $in: timed out" >&2
			fi
			cat "$tmp.err" "$tmp.out" >>"$out"
		done <reorg_cases.txt
	done
done
