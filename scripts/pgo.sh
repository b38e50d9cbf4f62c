#!/usr/bin/env bash
# Remakes cmd/gobtf/default.pgo, the CPU profile that "go build" uses for
# profile-guided optimization of gobtf (Go's -pgo=auto; see docs/performance.md,
# Measuring). The profile is of a build without it, encoding what a kernel
# build has gobtf encode: the shared vmlinux with the kernel-build flags (3
# runs, -j2) and with none, three modules as split BTF (2 runs each), and the
# deduplication of the 3.4 M-type vmlinux BTF. Needs ../shared.
#
#   scripts/pgo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/corpus.sh
[ -d "$SHARED/corpus" ] || { echo "pgo: needs the shared data folder $SHARED" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
CGO_ENABLED=0 go build -trimpath -pgo=off -o "$WORK/gobtf" ./cmd/gobtf

VMLINUX=$(unxz_cached "$SHARED/corpus/vmlinux-6.1.0-56-cloud-amd64.xz")
UNDEDUP=$(unxz_cached "$SHARED/reference/vmlinux-6.1.0-56-cloud-amd64.undeduped.btf.xz")
BASE="$SHARED/reference/vmlinux-6.1.0-56-cloud-amd64.kbuild.btf"
KFLAGS="-j2 --btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs,attributes --lang_exclude=rust"
n=0
profile() { # profile ARGS...: one run of gobtf, profiled
  n=$((n + 1))
  GOBTF_CPUPROFILE="$WORK/$n.prof" "$WORK/gobtf" "$@" >/dev/null
}
for i in 1 2 3; do
  profile -J $KFLAGS --btf_encode_detached="$WORK/v.btf" "$VMLINUX"
done
profile -J --btf_encode_detached="$WORK/v.btf" "$VMLINUX"
for m in xfs nf_conntrack virtio_net; do
  MOD=$(unxz_cached "$SHARED/corpus/modules/$m.ko.xz")
  for i in 1 2; do
    profile -J $KFLAGS --btf_base "$BASE" --btf_encode_detached="$WORK/m.btf" "$MOD"
  done
done
profile dedup "$UNDEDUP" "$WORK/d.btf"
go tool pprof -proto "$WORK"/*.prof > "$WORK/default.pgo"
mv -f "$WORK/default.pgo" cmd/gobtf/default.pgo
echo "pgo: wrote cmd/gobtf/default.pgo from $n profiled runs"
