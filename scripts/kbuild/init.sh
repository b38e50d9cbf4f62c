#!/bin/sh
# /init of the test initramfs built by scripts/kbuild-boot.sh. Runs inside the
# freshly built kernel, prints one "KBUILD-TEST PASS|FAIL name: detail" line
# per check, then reboots (qemu runs with -no-reboot, so it exits).
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null

pass() { echo "KBUILD-TEST PASS $1: $2"; }
fail() { echo "KBUILD-TEST FAIL $1: $2"; }

echo "KBUILD-TEST START $(uname -r)"
want=$(cat /expected-btf.sha256)

# 1. The kernel exposes its BTF, byte for byte the .BTF of the vmlinux built
#    on the host.
if [ -r /sys/kernel/btf/vmlinux ]; then
	got=$(sha256sum /sys/kernel/btf/vmlinux | cut -d' ' -f1)
	if [ "$got" = "$want" ]; then
		pass sysfs_btf "/sys/kernel/btf/vmlinux sha256 $got equals the host's vmlinux .BTF"
	else
		fail sysfs_btf "/sys/kernel/btf/vmlinux sha256 $got, host's vmlinux .BTF has $want"
	fi
else
	fail sysfs_btf "/sys/kernel/btf/vmlinux is missing"
fi

# 2. The kernel's BTF verifier accepts those bytes through bpf(BPF_BTF_LOAD).
/btfload-guest /sys/kernel/btf/vmlinux | sed 's/^\(PASS\|FAIL\) /KBUILD-TEST \1 /'

# 3. The module loads; with CONFIG_DEBUG_INFO_BTF_MODULES the kernel parses
#    its split BTF on top of vmlinux's BTF while loading it, and refuses the
#    module when that fails.
if out=$(insmod /gobtf_kbuild_test.ko 2>&1); then
	pass insmod "gobtf_kbuild_test.ko loaded"
else
	fail insmod "insmod gobtf_kbuild_test.ko: $out"
fi
if [ -r /sys/kernel/btf/gobtf_kbuild_test ]; then
	pass module_btf "/sys/kernel/btf/gobtf_kbuild_test exists ($(wc -c < /sys/kernel/btf/gobtf_kbuild_test) bytes)"
else
	fail module_btf "/sys/kernel/btf/gobtf_kbuild_test is missing"
fi

# 4. Nothing in the kernel log from the BTF verifier (it prefixes "BPF:"):
#    loading the module made the kernel parse its own vmlinux BTF.
if dmesg | grep -q 'BPF:'; then
	fail dmesg "BTF errors in the kernel log: $(dmesg | grep 'BPF:' | head -5 | tr '\n' '|')"
else
	pass dmesg "no 'BPF:' line in the kernel log"
fi

echo "KBUILD-TEST END"
sync
reboot -f
