#!/usr/bin/env bash
# Compares gobtf check's module check with the module loader of a real 6.1
# kernel: builds (through scripts/kbuild-boot.sh, which also boots its own
# checks) the small 6.1 kernel and the test module of make test-kbuild, with
# CONFIG_MODULE_ALLOW_BTF_MISMATCH off so that the kernel refuses a module
# whose BTF it refuses; writes N copies of the module with randomly mutated
# .BTF (scripts/btfmutate); loads each in the guest (insmod, then rmmod),
# recording the kernel's verdict and its "BPF:" log lines; and compares them
# with gobtf check --kernel 6.1 --as module on the same copies.
#
# Usage: scripts/kbuild-check.sh [N [SEED]]   (default 300 copies, seed 1)
#
# Needs what scripts/kbuild-boot.sh needs (root, qemu, linux-source-6.1, ...).
# Environment: GOBTF_TEST_CACHE, KBUILD_JOBS, QEMU_TIMEOUT (default 1200).
{
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-300}
seed=${2:-1}
cache="${GOBTF_TEST_CACHE:-$HOME/.cache/gobtf-test}"
top="$cache/kbuild"
build="$top/build-6.1"
work="$top/check"
say() { echo "kbuild-check: $*"; }
die() { echo "kbuild-check: FAIL: $*" >&2; exit 1; }

cd "$repo"
CGO_ENABLED=0 "${GO:-go}" build -trimpath -o bin/gobtf ./cmd/gobtf
bash scripts/kbuild-boot.sh --pahole bin/gobtf | sed 's/^/  /'
! grep -q '^CONFIG_MODULE_ALLOW_BTF_MISMATCH=y' "$build/.config" || die "the guest kernel allows BTF mismatches"
ko="$top/run/module/gobtf_kbuild_test.ko"
[ -f "$ko" ] || die "no test module at $ko"

rm -rf "$work"
mkdir -p "$work"
"${GO:-go}" build -o "$work/btfmutate" ./scripts/btfmutate
"$work/btfmutate" -base "$build/vmlinux" -n "$n" -seed "$seed" -out "$work/m" "$ko"
say "$n mutated copies of $(basename "$ko") in $work/m"

{
	echo "dir /bin 0755 0 0"
	echo "dir /dev 0755 0 0"
	echo "dir /proc 0755 0 0"
	echo "dir /sys 0755 0 0"
	echo "dir /m 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "file /bin/busybox /bin/busybox 0755 0 0"
	echo "slink /bin/sh busybox 0777 0 0"
	echo "file /init $repo/scripts/kbuild/check-init.sh 0755 0 0"
	for f in "$work"/m/*.ko; do
		echo "file /m/$(basename "$f") $f 0644 0 0"
	done
} > "$work/initramfs.list"
"$build/usr/gen_init_cpio" "$work/initramfs.list" > "$work/initramfs.cpio"

say "booting in qemu-system-x86_64 (TCG)"
log="$work/console.log"
set +e
timeout "${QEMU_TIMEOUT:-1200}" qemu-system-x86_64 -machine pc -accel tcg -m 512M -smp 1 \
	-nographic -no-reboot -nic none -kernel "$build/arch/x86/boot/bzImage" \
	-initrd "$work/initramfs.cpio" \
	-append "console=ttyS0 panic=-1 loglevel=1 rdinit=/init" > "$log" 2>&1
qrc=$?
set -e
say "qemu exited with $qrc; console log: $log"
grep -aq 'KBUILD-CHECK END' "$log" || say "the guest did not get through every copy (a crash or the timeout): the copies without a result are reported"
"$work/btfmutate" -compare "$log" -gobtf "$repo/bin/gobtf" -base "$build/vmlinux" "$work/m"
exit
}
