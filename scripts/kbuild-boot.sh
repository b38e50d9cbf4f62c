#!/usr/bin/env bash
# Builds a small Linux 6.1 kernel (Debian's linux-source-6.1) and an
# out-of-tree module with PAHOLE=<tool>, boots it in qemu-system-x86_64
# (software emulation) with a busybox initramfs, and checks inside the guest
# that the kernel's BTF is sound (scripts/kbuild/init.sh prints the checks).
#
# Usage: scripts/kbuild-boot.sh [--pahole TOOL] [--corrupt N] [--expect-fail CHECKS]
#   --pahole TOOL  the BTF encoder to build with (default: bin/gobtf; "pahole"
#                  for the real one); the config steps use it too, since
#                  Kconfig reads "$(PAHOLE) --version".
#   --corrupt N    build through a wrapper that runs TOOL and then takes N
#                  bytes off struct list_head's size in vmlinux's .BTF
#                  (scripts/btfcorrupt), so in-guest checks must fail: with
#                  N=1 the full verifier (btf_load); with N=9, past the
#                  second member's offset, also the kernel's own parse of
#                  its BTF when loading a module (insmod, module_btf, dmesg).
#   --expect-fail CHECKS  succeed only if the guest ran and each check of the
#                  comma-separated CHECKS failed (for --corrupt).
#
# Environment: GOBTF_TEST_CACHE (default ~/.cache/gobtf-test); the source is
# unpacked once into $GOBTF_TEST_CACHE/kbuild and the build folder is reused,
# so a second tool only relinks. KBUILD_JOBS (default: nproc), QEMU_TIMEOUT
# (seconds, default 300).
# The whole script is one block, so bash reads it all before running it
# (editing the file during a run cannot change that run).
{
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
tool="$repo/bin/gobtf"
corrupt=0
expect_fail=
while [ $# -gt 0 ]; do
	case "$1" in
	--pahole) tool="$2"; shift 2 ;;
	--corrupt) corrupt="$2"; shift 2 ;;
	--expect-fail) expect_fail="$2"; shift 2 ;;
	*) echo "usage: $0 [--pahole TOOL] [--corrupt N] [--expect-fail CHECKS]" >&2; exit 2 ;;
	esac
done

cache="${GOBTF_TEST_CACHE:-$HOME/.cache/gobtf-test}"
top="$cache/kbuild"
src="$top/linux-source-6.1"
build="$top/build-6.1"
jobs="${KBUILD_JOBS:-$(nproc)}"
tarball=/usr/src/linux-source-6.1.tar.xz

say() { echo "kbuild-boot: $*"; }
die() { echo "kbuild-boot: FAIL: $*" >&2; exit 1; }
elapsed() { echo "$(( $(date +%s) - t0 ))s"; }
t0=$(date +%s)

# Missing prerequisites skip the test (exit 0, "SKIP"), as the Go tests do;
# .ci/run installs them all.
skip() { echo "kbuild-boot: SKIP: $*"; exit 0; }
for cmd in qemu-system-x86_64 gcc make bc flex bison objcopy readelf sha256sum xz; do
	command -v "$cmd" >/dev/null || skip "$cmd is needed (see .ci/run for the packages)"
done
[ -x /bin/busybox ] || skip "/bin/busybox (busybox-static) is needed"
ldd /bin/busybox >/dev/null 2>&1 && skip "/bin/busybox is dynamically linked; install busybox-static"
[ -f "$tarball" ] || skip "$tarball is missing: apt-get install linux-source-6.1"
[ -f /usr/include/openssl/ssl.h ] || skip "libssl-dev is needed to build the kernel's host tools"
[ -f /usr/include/libelf.h ] || skip "libelf-dev is needed (objtool, resolve_btfids)"
tool=$(command -v "$tool") && tool=$(realpath "$tool") || die "PAHOLE tool $tool not found"
say "PAHOLE tool $tool ($("$tool" --version)); corrupt=$corrupt"

# The source, unpacked once (about 20 s).
if [ ! -f "$src/.unpacked" ] || [ "$tarball" -nt "$src/.unpacked" ]; then
	say "unpacking $tarball"
	rm -rf "$src"
	mkdir -p "$top"
	tar -xJf "$tarball" -C "$top"
	touch "$src/.unpacked"
fi

# What the kernel build calls as $(PAHOLE).
work="$top/run"
mkdir -p "$work" "$build"
pahole="$tool"
if [ "$corrupt" != 0 ]; then
	(cd "$repo" && "${GO:-go}" build -o "$work/btfcorrupt" ./scripts/btfcorrupt)
	pahole="$work/pahole-corrupt-$corrupt"
	# A stand-in for pahole: the real tool, then, when it has just written
	# .BTF into a vmlinux image (no --btf_base: not a module), one struct
	# shrunk in that .BTF.
	cat > "$pahole" <<EOF
#!/bin/sh
"$tool" "\$@" || exit \$?
case " \$* " in
*" --version "*|*--btf_base*|*--btf_encode_detached*|*--supported_btf_features*) exit 0 ;;
esac
for last; do :; done
exec "$work/btfcorrupt" -struct list_head -by $corrupt "\$last"
EOF
	chmod +x "$pahole"
fi
kmake() { make -s -C "$src" O="$build" -j"$jobs" PAHOLE="$pahole" "$@"; }

# Configuration: tinyconfig plus what BTF, modules, a serial console, an
# initramfs, /proc and /sys need. Kconfig runs "$(PAHOLE) --version", so the
# configuration is redone (olddefconfig) with every tool.
frag="$work/config.fragment"
cat > "$frag" <<'EOF'
CONFIG_64BIT=y
CONFIG_SMP=y
CONFIG_MODULES=y
CONFIG_MODULE_UNLOAD=y
CONFIG_BPF_SYSCALL=y
CONFIG_DEBUG_KERNEL=y
CONFIG_DEBUG_INFO_DWARF5=y
CONFIG_DEBUG_INFO_BTF=y
CONFIG_DEBUG_INFO_BTF_MODULES=y
CONFIG_PRINTK=y
CONFIG_TTY=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_BLK_DEV_INITRD=y
CONFIG_BINFMT_ELF=y
CONFIG_BINFMT_SCRIPT=y
CONFIG_PROC_FS=y
CONFIG_SYSFS=y
CONFIG_DEVTMPFS=y
CONFIG_DEVTMPFS_MOUNT=y
EOF
if [ ! -f "$build/.config" ]; then
	say "configuring (tinyconfig + $(grep -c . "$frag") options)"
	kmake tinyconfig > "$work/config.log" 2>&1 || { cat "$work/config.log"; die "make tinyconfig failed"; }
fi
args=()
while IFS='=' read -r name _; do
	args+=(--enable "${name#CONFIG_}")
done < "$frag"
"$src/scripts/config" --file "$build/.config" --disable DEBUG_INFO_NONE "${args[@]}"
kmake olddefconfig
while IFS= read -r line; do
	grep -qx "$line" "$build/.config" || die "configuration lacks $line (Kconfig with PAHOLE=$pahole: $(grep PAHOLE_VERSION "$build/.config"))"
done < "$frag"
say "config: $(grep '^CONFIG_PAHOLE_VERSION' "$build/.config") ($(elapsed))"

# Build. When the last link used another tool (or another build of it),
# removing vmlinux makes link-vmlinux.sh (and its BTF step) run with this one
# even when no object changed; the module is always rebuilt.
stamp="$build/.kbuild-boot-pahole"
stamp_files=("$pahole" "$tool")
[ "$corrupt" = 0 ] || stamp_files+=("$work/btfcorrupt")
want_stamp="$pahole $(cat "${stamp_files[@]}" | sha256sum | cut -c1-64)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want_stamp" ]; then
	rm -f "$build/vmlinux" "$build/arch/x86/boot/bzImage" "$stamp"
fi
say "building the kernel with -j$jobs"
kmake bzImage modules_prepare > "$work/build.log" 2>&1 || { tail -n 40 "$work/build.log"; die "the kernel build failed (log: $work/build.log)"; }
[ -f "$build/arch/x86/boot/bzImage" ] || die "no bzImage was built"
echo "$want_stamp" > "$stamp"
say "kernel built ($(elapsed))"
mod="$work/module"
rm -rf "$mod"
cp -r "$repo/scripts/kbuild/module" "$mod"
make -s -C "$build" M="$mod" PAHOLE="$pahole" -j"$jobs" modules > "$work/module.log" 2>&1 || { cat "$work/module.log"; die "the module build failed"; }
ko="$mod/gobtf_kbuild_test.ko"
[ -f "$ko" ] || die "the module was not built"
say "module built ($(elapsed))"

# Host-side checks of what the build produced.
readelf -S -W "$build/vmlinux" | grep ' \.BTF ' >/dev/null || die "vmlinux has no .BTF section"
readelf -S -W "$ko" | grep ' \.BTF ' >/dev/null || die "$ko has no .BTF section"
objcopy --dump-section .BTF="$work/vmlinux.BTF" "$build/vmlinux" "$work/vmlinux.dump.tmp"
rm -f "$work/vmlinux.dump.tmp"
sha=$(sha256sum "$work/vmlinux.BTF" | cut -d' ' -f1)
say "vmlinux .BTF: $(stat -c %s "$work/vmlinux.BTF") bytes, sha256 $sha"

# The initramfs: static busybox, the BTF_LOAD program, the module, /init.
gcc -static -O2 -Wall -o "$work/btfload-guest" "$repo/scripts/kbuild/btfload-guest.c"
echo "$sha" > "$work/expected-btf.sha256"
cat > "$work/initramfs.list" <<EOF
dir /bin 0755 0 0
dir /dev 0755 0 0
dir /proc 0755 0 0
dir /sys 0755 0 0
dir /tmp 0755 0 0
nod /dev/console 0600 0 0 c 5 1
file /bin/busybox /bin/busybox 0755 0 0
slink /bin/sh busybox 0777 0 0
file /init $repo/scripts/kbuild/init.sh 0755 0 0
file /btfload-guest $work/btfload-guest 0755 0 0
file /gobtf_kbuild_test.ko $ko 0644 0 0
file /expected-btf.sha256 $work/expected-btf.sha256 0644 0 0
EOF
"$build/usr/gen_init_cpio" "$work/initramfs.list" > "$work/initramfs.cpio"

say "booting in qemu-system-x86_64 (TCG)"
log="$work/console.log"
set +e
timeout "${QEMU_TIMEOUT:-300}" qemu-system-x86_64 -machine pc -accel tcg -m 256M -smp 2 \
	-nographic -no-reboot -nic none -kernel "$build/arch/x86/boot/bzImage" \
	-initrd "$work/initramfs.cpio" \
	-append "console=ttyS0 panic=-1 loglevel=4 rdinit=/init" > "$log" 2>&1
qrc=$?
set -e
tr -d '\r' < "$log" | grep -aE 'KBUILD-TEST|BPF:|Kernel panic|failed to validate' | sed -E 's/^.*(KBUILD-TEST)/\1/' || true
say "qemu exited with $qrc ($(elapsed)); console log: $log"

grep -aq 'KBUILD-TEST END' "$log" || die "the guest did not finish its checks (qemu status $qrc)"
npass=$(grep -ac 'KBUILD-TEST PASS' "$log" || true)
nfail=$(grep -ac 'KBUILD-TEST FAIL' "$log" || true)
for check in sysfs_btf btf_load insmod module_btf dmesg; do
	grep -aEq "KBUILD-TEST (PASS|FAIL) $check:" "$log" || die "the guest printed no result for $check"
done
if [ -n "$expect_fail" ]; then
	for check in ${expect_fail//,/ }; do
		grep -aq "KBUILD-TEST FAIL $check:" "$log" || die "expected the in-guest check $check to fail"
	done
	say "OK: the in-guest checks $expect_fail failed as expected ($nfail failed, $npass passed) with PAHOLE=$pahole ($(elapsed))"
	exit 0
fi
[ "$nfail" = 0 ] || die "$nfail in-guest checks failed with PAHOLE=$pahole"
say "PASS: all $npass in-guest checks passed with PAHOLE=$pahole ($(elapsed))"
exit
}
