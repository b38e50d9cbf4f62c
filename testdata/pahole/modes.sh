#!/bin/sh
# Makes modes.sha256: pahole master's output for the printing modes of
# issue 52 (--compile, the per-type facts, the selection options, -C
# filters) on the shared files, as
#   INPUT SHA256(stdout) SHA256(stderr) EXIT ARGS...
# one case a line; cmd/gobtf/modes_test.go runs gobtf on each and compares.
# INPUT is btf (the shared vmlinux kbuild BTF), dwarf (the shared vmlinux),
# xfs (the shared xfs.ko, DWARF) or xfsbtf (the shared xfs.btf on the
# vmlinux BTF, with --btf_base). Arguments hold no blanks. pahole runs in
# the input's folder on its base name, as the test does (-u and some
# errors print the file's name).
#
# usage: GOBTF_SHARED=/work/shared CORPUS=/scratch/c \
#        testdata/pahole/modes.sh /scratch/bin/pahole-master > testdata/pahole/modes.sha256
set -eu
pahole=$1
ref=${GOBTF_SHARED:-/work/shared}/reference
btf=vmlinux-6.1.0-56-cloud-amd64.kbuild.btf
corpus=${CORPUS:-/scratch/c}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

one() {
	in=$1
	shift
	args=$*
	dir=$ref
	case $in in
	btf) set -- "$@" "$btf" ;;
	dwarf) set -- "$@" vmlinux-6.1.0-56-cloud-amd64; dir=$corpus ;;
	xfs) set -- "$@" xfs.ko; dir=$corpus ;;
	xfsbtf) set -- --btf_base "$btf" "$@" modules/xfs.btf ;;
	esac
	rc=0
	(cd "$dir" && "$pahole" "$@") >"$tmp/out" 2>"$tmp/err" || rc=$?
	echo "$in $(sha256sum <"$tmp/out" | cut -c1-64) $(sha256sum <"$tmp/err" | cut -c1-64) $rc $args"
}

echo "# pahole master (dwarves 1436daf) on the shared files: made by testdata/pahole/modes.sh"
for in in btf xfs xfsbtf dwarf; do
	one $in --compile
	one $in --compile --skip_emitting_atomic_typedefs
	one $in --compile -C task_struct,sk_buff,atomic_t,pid_type
	one $in --compile -C xfs_inode,xfs_mount
	one $in -T
	one $in -m
	one $in --compile --sort -C list_head,task_struct
	one $in -f list_head
	one $in -f xfs_inode,list_head
	one $in --contains_enumerator PIDTYPE_PID
	one $in --contains_enumerator XFS_DINODE_FMT_DEV
	one $in -l -C task_struct,xfs_inode,list_head
	one $in -M -C task_struct,xfs_inode
	one $in -D fs/xfs -C xfs_inode,list_head
	one $in -X / -C list_head
	one $in -X fs/xfs/xfs_inode -C xfs_inode
	one $in --first_obj_only -C list_head,xfs_inode
	one $in --skip_missing -C list_head,nonexistent,xfs_inode
	one $in --classes_as_structs -C list_head
	one $in -m -C list_head
	one $in --hashbits=40 -C list_head
	one $in -C 'list_head(filter=next==1)'
	one $in -C 'list_head(next==0x10)'
	one $in -C 'list_head(filter=nxt==1)'
	one $in -C 'list_head(filter=next==abc)'
	one $in -C 'perf_event_header(type,type_enum=perf_event_type,filter=type==PERF_RECORD_MMAP)'
	one $in -C 'perf_event_header(type,type_enum=perf_event_type,filter=type==FOO)'
	case $in in
	dwarf) ;; # too big a whole output for a test: the -C cases above
	*)
		one $in --sort
		one $in --compile --sort
		one $in -M
		one $in -l
		one $in -D fs/xfs
		one $in --show_private_classes
		one $in --first_obj_only
		one $in -u -C xfs_inode,list_head
		;;
	esac
done
