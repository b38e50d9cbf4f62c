#!/bin/bash
# Makes the inputs of the data pretty-printer's tests (--prettify) and
# records pahole master's answers to the command lines of cases.txt in
# master.txt, in testdata/paholecli's format: for each case a line
# "=== CASE", its exit status ("exit N"), then its standard output and its
# standard error, each as "stdout"/"stderr" followed by its lines prefixed
# with "|", or, for an output longer than 2000 bytes, "stdout sha256 HEX
# LENGTH". pahole runs in a folder of its own (@D) with argv[0] "gobtf".
#
# The inputs, all made here:
#   records.c   gobtf's fixture types and a program writing records.bin
#   records.o   gcc -g -O0 -fno-eliminate-unused-debug-types -c records.c
#   records.btf pahole master -J --btf_encode_detached on records.o
#   records.bin written by records.c compiled and run
#   perf.c, perf.o, perf.btf  perf.data's record types, compiled the same way
#   perf.data   perf record -e cpu-clock -c 1000000 of a shell loop (over
#               1,000 records); kept when present, RERECORD=1 records anew
#   versions.bin  objcopy -O binary --only-section=__versions of the
#               corpus virtio_blk.ko (struct modversion_info records)
#   vmlinux.head  the first 512 bytes of the corpus vmlinux (its ELF header
#               and program headers)
# Placeholders in cases.txt: @FIX (this folder), @KBTF (the shared kbuild
# vmlinux BTF), @VMLINUX (the corpus vmlinux), @D (a folder holding adir/,
# and records.cut: records.bin's first 300 bytes, which end inside a
# record), @PDOFF and @PDSIZE (perf.data's data section, from its header).
# A case starting with "<FILE" has FILE as its standard input, "|FILE"
# FILE piped through cat.
#
# The answers stored were made by pahole master 1436daf built with the
# libbpf of ../shared/tools/libbpf (f7081a6), gcc 12 and perf 6.1. Usage:
#   PAHOLE=/path/to/pahole-master SHARED=/path/to/shared CORPUS=/path/to/decompressed/corpus ./gen.sh
set -e
: "${PAHOLE:?set PAHOLE to the binary of pahole master}" "${SHARED:?}" "${CORPUS:?}"
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
kbtf=$SHARED/reference/vmlinux-6.1.0-56-cloud-amd64.kbuild.btf
vmlinux=$CORPUS/vmlinux-6.1.0-56-cloud-amd64
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT

for f in records perf; do
	gcc -g -O0 -fno-eliminate-unused-debug-types -c $f.c -o $f.o
	"$PAHOLE" -J --btf_encode_detached=$f.btf $f.o
done
gcc -O0 records.c -o "$D/records"
"$D/records" > records.bin
if [ ! -s perf.data ] || [ -n "$RERECORD" ]; then
	perf record -q -o perf.data -e cpu-clock -c 1000000 -- \
		sh -c 'i=0; while [ $i -lt 1000000 ]; do i=$((i+1)); done'
	chmod 644 perf.data
fi
objcopy -O binary --only-section=__versions "$CORPUS/virtio_blk.ko" versions.bin
head -c 512 "$vmlinux" > vmlinux.head

mkdir "$D/adir"
head -c 300 records.bin > "$D/records.cut"
# perf.data's header: the data section's offset and size at bytes 40 and 48.
pdoff=$(od -An -t u8 -j 40 -N 8 perf.data | tr -d ' ')
pdsize=$(od -An -t u8 -j 48 -N 8 perf.data | tr -d ' ')

subst() {
	sed -e "s#@KBTF#$kbtf#g" -e "s#@VMLINUX#$vmlinux#g" -e "s#@FIX#$here#g" -e "s#@D#$D#g" \
		-e "s#@PDOFF#$pdoff#g" -e "s#@PDSIZE#$pdsize#g"
}
unsubst() {
	sed -e "s#$kbtf#@KBTF#g" -e "s#$vmlinux#@VMLINUX#g" -e "s#$here#@FIX#g" -e "s#$D#@D#g"
}
emit() { # emit NAME FILE
	if [ "$(wc -c < "$2")" -gt 2000 ]; then
		printf '%s sha256 %s %d\n' "$1" "$(sha256sum < "$2" | cut -d' ' -f1)" "$(wc -c < "$2")"
	else
		echo "$1"
		unsubst < "$2" | sed 's/^/|/'
		if [ -s "$2" ] && [ "$(tail -c1 "$2" | od -An -c | tr -d ' ')" != '\n' ]; then echo '\'; fi
	fi
}
grep -v '^#' cases.txt | grep -v '^$' | while IFS= read -r line; do
	words=$(printf '%s\n' "$line" | subst)
	in=/dev/null pipe=
	case $words in
	'<'*) in=${words%% *}; in=${in#<}; words=${words#* } ;;
	'|'*) in=${words%% *}; in=${in#|}; pipe=1; words=${words#* } ;;
	esac
	eval "set -- $words"
	set +e
	if [ -n "$pipe" ]; then
		(cd "$D" && cat "$in" | env -u POSIXLY_CORRECT -u LIBBPF_LOG_LEVEL -u PAHOLE_LANG_EXCLUDE \
			bash -c 'exec -a gobtf "$0" "$@"' "$PAHOLE" "$@") > "$D/.out" 2> "$D/.err"
	else
		(cd "$D" && env -u POSIXLY_CORRECT -u LIBBPF_LOG_LEVEL -u PAHOLE_LANG_EXCLUDE \
			bash -c 'exec -a gobtf "$0" "$@"' "$PAHOLE" "$@") > "$D/.out" 2> "$D/.err" < "$in"
	fi
	status=$?
	set -e
	echo "=== $line"
	echo "exit $status"
	emit stdout "$D/.out"
	emit stderr "$D/.err"
done > master.txt
