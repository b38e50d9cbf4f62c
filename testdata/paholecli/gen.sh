#!/bin/bash
# Records pahole master's answers to the command lines of cases.txt in
# master.txt, and its --usage in usage.txt. For each case master.txt holds
# a line "=== CASE", its exit status ("exit N"), then its standard
# output and its standard error, each as "stdout"/"stderr" followed by its
# lines prefixed with "|", or, for an output longer than 2000 bytes,
# "stdout sha256 HEX LENGTH". Paths in the outputs are written back as the
# placeholders of cases.txt. pahole runs with argv[0] "gobtf", so that
# getopt's and argp's messages name the program as gobtf's name it.
# The answers stored were made by pahole master 1436daf built with the
# libbpf of ../shared/tools/libbpf (f7081a6). Usage (LD_LIBRARY_PATH as
# that binary needs):
#   PAHOLE=/path/to/bin/pahole SHARED=/path/to/shared CORPUS=/path/to/decompressed/corpus ./gen.sh
set -e
: "${PAHOLE:?set PAHOLE to the binary of pahole master}" "${SHARED:?}" "${CORPUS:?}"
here=$(cd "$(dirname "$0")" && pwd)
fix=$(cd "$here/../classlayout" && pwd)
ref=$SHARED/reference
kbtf=$ref/vmlinux-6.1.0-56-cloud-amd64.kbuild.btf
dbtf=$ref/vmlinux-6.1.0-56-cloud-amd64.default.btf
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
printf 'hello\n' > "$D/text.txt"
: > "$D/empty"
mkdir "$D/adir"
head -c 100 "$kbtf" > "$D/trunc.btf"
head -c 30 "$fix/layout.gcc.btf" > "$D/cut30.btf"
# Placeholders to paths, and back (longest paths first).
subst() {
	sed -e "s#@KBTF#$kbtf#g" -e "s#@DBTF#$dbtf#g" -e "s#@XFSBTF#$ref/modules/xfs.btf#g" \
		-e "s#@NLSBTF#$ref/modules/nls_utf8.btf#g" -e "s#@XFSKO#$CORPUS/xfs.ko#g" \
		-e "s#@FIX#$fix#g" -e "s#@D#$D#g"
}
unsubst() {
	sed -e "s#$ref/modules/xfs.btf#@XFSBTF#g" -e "s#$ref/modules/nls_utf8.btf#@NLSBTF#g" \
		-e "s#$kbtf#@KBTF#g" -e "s#$dbtf#@DBTF#g" -e "s#$CORPUS/xfs.ko#@XFSKO#g" \
		-e "s#$fix#@FIX#g" -e "s#$D#@D#g"
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
bash -c 'exec -a pahole "$0" --usage' "$PAHOLE" > "$here/usage.txt"
grep -v '^#' "$here/cases.txt" | grep -v '^$' | while IFS= read -r line; do
	words=$(printf '%s\n' "$line" | subst)
	eval "set -- $words"
	envs=(PAHOLE_VMLINUX_BTF_FILENAME="$kbtf")
	while [ $# -gt 0 ] && [[ $1 =~ ^[A-Z_]+= ]]; do envs+=("$1"); shift; done
	set +e
	(cd "$D" && env -u POSIXLY_CORRECT -u LIBBPF_LOG_LEVEL -u PAHOLE_LANG_EXCLUDE "${envs[@]}" \
		bash -c 'exec -a gobtf "$0" "$@"' "$PAHOLE" "$@") > "$D/.out" 2> "$D/.err" < /dev/null
	status=$?
	set -e
	echo "=== $line"
	echo "exit $status"
	emit stdout "$D/.out"
	emit stderr "$D/.err"
done > "$here/master.txt"
