#!/bin/sh
# Records the SHA-256 of pahole master's output on the shared kernel BTF
# (see internal/testutil: ../shared/reference beside the repository, or
# $GOBTF_SHARED) for each option set of shared_cases.txt, as lines
# "SHA256 INPUT OPTIONS"; INPUT "vmlinux" is the reference kbuild BTF,
# "module:NAME" that module's split BTF on it; "dwarf:vmlinux" and
# "dwarf:NAME" are the DWARF of the corpus files (decompressed in $CORPUS).
# Usage: PAHOLE=/path/to/pahole-master SHARED=/path/to/shared CORPUS=/path/to/decompressed/corpus \
#        ./gen_shared.sh > shared.sha256
# Each sum is of the standard output followed by the standard error.
set -e
: "${PAHOLE:=pahole-master}"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
run() { "$PAHOLE" "$@" 2>"$tmp"; cat "$tmp"; }
ref=$SHARED/reference
base=$ref/vmlinux-6.1.0-56-cloud-amd64.kbuild.btf
while IFS= read -r opts; do
	# shellcheck disable=SC2086
	sum=$(run -F btf $opts "$base" | sha256sum | cut -d' ' -f1)
	printf '%s vmlinux %s\n' "$sum" "$opts"
done < shared_cases.txt
for m in nf_conntrack nls_utf8 tcp_bbr virtio_blk virtio_net xfs; do
	sum=$(run --btf_base "$base" "$ref/modules/$m.btf" | sha256sum | cut -d' ' -f1)
	printf '%s module:%s\n' "$sum" "$m"
done
core=list_head,task_struct,sk_buff,inode,page,mm_struct,file,net_device,sock,rq,cfs_rq,folio,zone,pglist_data,bio,request_queue,net,tcp_sock,kmem_cache,irq_desc,device,pci_dev,file_operations
for opts in "" "-C $core" "-s" "-E -C task_struct" "--packed" "--hex -r -C sk_buff" "-I -C task_struct,list_head"; do
	# shellcheck disable=SC2086
	sum=$(run -F dwarf $opts "$CORPUS/vmlinux" | sha256sum | cut -d' ' -f1)
	printf '%s dwarf:vmlinux %s\n' "$sum" "$opts"
done
for m in nf_conntrack nls_utf8 tcp_bbr virtio_blk virtio_net xfs; do
	sum=$(run -F dwarf "$CORPUS/$m.ko" | sha256sum | cut -d' ' -f1)
	printf '%s dwarf:%s\n' "$sum" "$m"
done
# Reorganizing (-R, -S, -P) and -w. pahole's reorganization of pglist_data
# never ends (its moves cycle), so -P runs exclude it with -x.
core_r=list_head,task_struct,sk_buff,inode,page,mm_struct,file,net_device,sock,rq,cfs_rq,zone,lruvec,bio,request_queue,tcp_sock,kmem_cache,device,pci_dev
for opts in "-P -x pglist_data" "-P -V -x pglist_data" "-P --sort -x pglist_data" "-w 4" "-w 2 -s" "-R -C $core_r" "-S -R -C $core_r" "-V -R -C task_struct,sk_buff" "-R -E --hex -C task_struct" "-i list_head -V"; do
	# shellcheck disable=SC2086
	sum=$(run -F btf $opts "$base" | sha256sum | cut -d' ' -f1)
	printf '%s vmlinux %s\n' "$sum" "$opts"
done
for m in nf_conntrack nls_utf8 tcp_bbr virtio_blk virtio_net xfs; do
	sum=$(run -P -x pglist_data --btf_base "$base" "$ref/modules/$m.btf" | sha256sum | cut -d' ' -f1)
	printf '%s module:%s -P -x pglist_data\n' "$sum" "$m"
	sum=$(run -F dwarf -P -x pglist_data "$CORPUS/$m.ko" | sha256sum | cut -d' ' -f1)
	printf '%s dwarf:%s -P -x pglist_data\n' "$sum" "$m"
	sum=$(run -F dwarf -w 4 "$CORPUS/$m.ko" | sha256sum | cut -d' ' -f1)
	printf '%s dwarf:%s -w 4\n' "$sum" "$m"
done
for opts in "-P -x pglist_data" "-R -C $core_r" "-S -R -C task_struct,sk_buff,mm_struct"; do
	# shellcheck disable=SC2086
	sum=$(run -F dwarf $opts "$CORPUS/vmlinux" | sha256sum | cut -d' ' -f1)
	printf '%s dwarf:vmlinux %s\n' "$sum" "$opts"
done
# -R on every struct with holes but pglist_data (named "@holes" in the sums).
holes=$("$PAHOLE" -F btf -H 1 -s --structs "$base" | cut -f1 | grep -vx pglist_data | sort -u | paste -sd,)
sum=$(run -F btf -R -C "$holes" "$base" | sha256sum | cut -d' ' -f1)
printf '%s vmlinux -R -C @holes\n' "$sum"
