#!/bin/sh
# /init of the initramfs of scripts/kbuild-check.sh: loads each mutated copy
# of the test module in turn and prints, for each, whether the kernel took
# it and the BTF lines it logged:
#   MUT NAME loaded|failed DETAIL
#   MUTLOG NAME LINE        (each "BPF:" or "failed to validate module" line)
#   MUTEND NAME
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev
mount -t proc proc /proc
mount -t sysfs sysfs /sys
echo "KBUILD-CHECK START $(uname -r)"
for ko in /m/*.ko; do
	name=${ko##*/}
	dmesg -c > /dev/null
	if out=$(insmod "$ko" 2>&1); then
		echo "MUT $name loaded"
		rmmod gobtf_kbuild_test || echo "MUT $name rmmod-failed"
	else
		echo "MUT $name failed $out"
	fi
	dmesg | grep -E 'BPF:|failed to validate module' | sed "s|^|MUTLOG $name |"
	echo "MUTEND $name"
done
echo "KBUILD-CHECK END"
sync
reboot -f
