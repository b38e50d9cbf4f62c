#!/bin/sh
# Records the SHA-256 of pahole master's output on the shared kernel BTF
# (see internal/testutil: ../shared/reference beside the repository, or
# $GOBTF_SHARED) for each option set of shared_cases.txt, as lines
# "SHA256 INPUT OPTIONS"; INPUT "vmlinux" is the reference kbuild BTF,
# "module:NAME" that module's split BTF on it.
# Usage: PAHOLE=/path/to/pahole-master SHARED=/path/to/shared ./gen_shared.sh > shared.sha256
set -e
: "${PAHOLE:=pahole-master}"
ref=$SHARED/reference
base=$ref/vmlinux-6.1.0-56-cloud-amd64.kbuild.btf
while IFS= read -r opts; do
	# shellcheck disable=SC2086
	sum=$("$PAHOLE" -F btf $opts "$base" 2>&1 | sha256sum | cut -d' ' -f1)
	printf '%s vmlinux %s\n' "$sum" "$opts"
done < shared_cases.txt
for m in nf_conntrack nls_utf8 tcp_bbr virtio_blk virtio_net xfs; do
	sum=$("$PAHOLE" --btf_base "$base" "$ref/modules/$m.btf" 2>&1 | sha256sum | cut -d' ' -f1)
	printf '%s module:%s\n' "$sum" "$m"
done
