#!/usr/bin/env bash
# Replays the BTF steps of Linux kernel builds, the way the kernel's own
# scripts call pahole, on copies of the shared Debian 6.1 vmlinux and modules,
# with gobtf as PAHOLE, and checks every result with readelf, bpftool, the
# kernel verifier (btfload) and btfdiff against what the same steps give with
# pahole:
#
#  A. Linux 6.1 scripts/link-vmlinux.sh gen_btf() (Debian linux-source-6.1
#     6.1.192-2): the function's text is taken from the tarball and run as
#     is, with PAHOLE_FLAGS from that tree's scripts/pahole-flags.sh, for
#     gobtf and for apt's pahole 1.24.
#  B. Linux 6.1 scripts/Makefile.modfinal cmd_btf_ko (same tarball):
#     LLVM_OBJCOPY=objcopy PAHOLE -J $(PAHOLE_FLAGS) --btf_base vmlinux M.ko,
#     with step A's image (now holding .BTF) as vmlinux.
#  C. Linux 6.7 to 6.18 scripts/Makefile.btf (pahole >= 1.30 branch):
#     PAHOLE_FLAGS = -j2 --btf_features=encode_force,var,float,enum64,
#     decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
#     --btf_features=attributes --lang_exclude=rust, with link-vmlinux.sh's
#     gen_btf (PAHOLE -J $PAHOLE_FLAGS IMAGE; objcopy --only-section=.BTF ...;
#     e_type patch) and Makefile.modfinal's PAHOLE -J $(PAHOLE_FLAGS)
#     $(MODULE_PAHOLE_FLAGS) --btf_base vmlinux M.ko, MODULE_PAHOLE_FLAGS
#     being empty in-tree and --btf_features=distilled_base for external
#     modules (KBUILD_EXTMOD). Compared with pahole master's references (../shared/reference).
#  D. Linux 7.x scripts/gen-btf.sh (torvalds/linux c17ee635fd3a): detached
#     output (PAHOLE -J $PAHOLE_FLAGS [--btf_base vmlinux]
#     --btf_encode_detached=F.BTF.1 F), gen_btf_o (an empty object from the C
#     compiler, objcopy --add-section .BTF --set-section-flags
#     .BTF=alloc,readonly, objcopy --only-section=.BTF --strip-all, e_type
#     patch) and embed_btf_data for modules (objcopy --add-section .BTF).
#     resolve_btfids is not replayed (it belongs to the kernel tree).
#  E. bpf-next scripts/Makefile.btf (June 2026), which adds
#     --btf_features=layout for pahole >= 1.31: the vmlinux BTF with a kind
#     layout section, and modules encoded on it as their base.
#
# Usage: scripts/kbuild-steps.sh  (environment: GOBTF, default bin/gobtf;
# GOBTF_SHARED, default ../shared; GOBTF_TEST_CACHE, default
# ~/.cache/gobtf-test; KBUILD_MODULES, default all six shared modules).
# Exits 0 when every check passed, 1 otherwise; skips (exit 0, "SKIP" on
# stdout) when the shared files or a tool are missing.
# The whole script is one block, so bash reads it all before running it
# (editing the file during a run cannot change that run).
{
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
gobtf=$(realpath "${GOBTF:-$repo/bin/gobtf}")
shared="${GOBTF_SHARED:-$repo/../shared}"
cache="${GOBTF_TEST_CACHE:-$HOME/.cache/gobtf-test}"
work="$cache/kbuild/steps"
vmname=vmlinux-6.1.0-56-cloud-amd64
modules=(${KBUILD_MODULES:-nls_utf8 tcp_bbr virtio_blk virtio_net nf_conntrack xfs})
tarball=/usr/src/linux-source-6.1.tar.xz
t0=$(date +%s)

skip() { echo "kbuild-steps: SKIP: $*"; exit 0; }
fails=0
pass() { echo "  ok   $*"; }
fail() { echo "  FAIL $*"; fails=$((fails + 1)); }
# check DESCRIPTION CMD...: runs CMD quietly, reporting ok or FAIL (with its output).
check() {
	local what="$1" out
	shift
	if out=$("$@" 2>&1); then pass "$what"; else fail "$what"; printf '%s\n' "$out" | tail -n 15 | sed 's/^/       /'; fi
}
section() { echo "== $* ($(( $(date +%s) - t0 ))s)"; }

[ -d "$shared/reference" ] || skip "needs the shared test data folder $shared"
[ -x "$gobtf" ] || skip "gobtf not built at $gobtf (make build)"
for cmd in pahole objcopy readelf bpftool xz gcc make; do
	command -v "$cmd" >/dev/null || skip "$cmd is needed (see .ci/run)"
done
[ -f "$tarball" ] || skip "$tarball is missing: apt-get install linux-source-6.1"
[ "$(id -u)" = 0 ] || skip "btfload (BPF_BTF_LOAD) needs root"

# The shared verification tools, built once into the cache (as internal/testutil does).
tools="$cache/tools"
if [ ! -x "$tools/bin/btfload" ] || [ ! -x "$tools/bin/btfdiff" ]; then
	cp -rT "$shared/tools" "$tools" && chmod -R u+w "$tools"
	make -s -C "$tools" BIN=bin >/dev/null || skip "building $shared/tools failed"
fi
btfload="$tools/bin/btfload"
btfdiff="$tools/bin/btfdiff"

# Inputs: the corpus decompressed into the cache (as the Go tests do).
mkdir -p "$work"
decompress() { # SRC.xz DST
	if [ ! -s "$2" ] || [ "$1" -nt "$2" ]; then
		xz -dc "$1" > "$2.tmp" && mv "$2.tmp" "$2"
	fi
}
decompress "$shared/corpus/$vmname.xz" "$cache/$vmname"
for m in "${modules[@]}"; do decompress "$shared/corpus/modules/$m.ko.xz" "$cache/$m.ko"; done
refvm="$shared/reference/$vmname.kbuild.btf"

# The 6.1 scripts' text, from Debian's linux-source-6.1.
k61="$work/linux-6.1-scripts"
if [ ! -f "$k61/.done" ] || [ "$tarball" -nt "$k61/.done" ]; then
	rm -rf "$k61"
	mkdir -p "$k61"
	tar -xJf "$tarball" -C "$k61" --strip-components=1 \
		linux-source-6.1/Makefile linux-source-6.1/scripts/link-vmlinux.sh \
		linux-source-6.1/scripts/pahole-flags.sh linux-source-6.1/scripts/pahole-version.sh \
		linux-source-6.1/scripts/Makefile.modfinal
	touch "$k61/.done"
fi
sed -n '/^gen_btf()/,/^}/p' "$k61/scripts/link-vmlinux.sh" > "$work/gen_btf-6.1.sh"
grep -q 'LLVM_OBJCOPY="${OBJCOPY}" ${PAHOLE} -J ${PAHOLE_FLAGS} ${1}' "$work/gen_btf-6.1.sh" ||
	{ fail "6.1 link-vmlinux.sh gen_btf() has the expected pahole call"; exit 1; }
modfinal_cmd='LLVM_OBJCOPY="$(OBJCOPY)" $(PAHOLE) -J $(PAHOLE_FLAGS) --btf_base vmlinux $@;'
grep -qF "$modfinal_cmd" "$k61/scripts/Makefile.modfinal" ||
	{ fail "6.1 Makefile.modfinal has the expected pahole call"; exit 1; }
echo "kbuild-steps: Linux $(sed -n 's/^VERSION = //p;s/^PATCHLEVEL = //p;s/^SUBLEVEL = //p' "$k61/Makefile" | paste -sd.) scripts from $tarball; gobtf $gobtf ($("$gobtf" --version)), pahole $(command -v pahole) ($(pahole --version))"

# The image a kernel build hands to pahole has no .BTF yet: a copy of the
# shared vmlinux without it (Debian's finished vmlinux carries one).
nobtf="$work/vmlinux.nobtf"
if [ ! -s "$nobtf" ] || [ "$cache/$vmname" -nt "$nobtf" ]; then
	objcopy --remove-section .BTF "$cache/$vmname" "$nobtf.tmp" 2>/dev/null && mv "$nobtf.tmp" "$nobtf"
fi
nomod="$work/modules.nobtf"
mkdir -p "$nomod"
for m in "${modules[@]}"; do objcopy --remove-section .BTF "$cache/$m.ko" "$nomod/$m.ko"; done

# Checks shared by the steps.
is_rel_btf_o() { # OUT.o: ET_REL, one allocated .BTF, no symbols
	readelf -h "$1" | grep 'Type:[[:space:]]*REL (Relocatable file)' >/dev/null || { readelf -h "$1" | grep Type; return 1; }
	readelf -S -W "$1" | grep -E '^ *\[ *[0-9]+\] \.BTF +PROGBITS .* A ' >/dev/null || { readelf -S -W "$1"; return 1; }
	[ "$(readelf -S -W "$1" | grep -cE '^ *\[ *[0-9]+\] ')" = 3 ] || { readelf -S -W "$1"; return 1; } # NULL, .BTF, .shstrtab
	! readelf -s -W "$1" | grep 'Symbol table' >/dev/null
}
dump_btf() { objcopy --dump-section "$2=$3" "$1" "$3.scratch" && rm -f "$3.scratch"; }
same_section() { # ELF1 ELF2 [SECTION]
	local s="${3:-.BTF}"
	dump_btf "$1" "$s" "$work/.a" && dump_btf "$2" "$s" "$work/.b" && cmp "$work/.a" "$work/.b"
}
section_is() { dump_btf "$1" .BTF "$work/.a" && cmp "$work/.a" "$2"; } # ELF RAW
bpftool_reads() { local n; n=$(bpftool "$@" | grep -c '^\[') && [ "$n" -gt 0 ] && echo "$n types"; }
sections_of() { # ELF: names of the sections with contents, but .BTF, .BTF.base and .shstrtab
	readelf -S -W "$1" | sed -nE 's/^ *\[ *[0-9]+\] ([^ ]+) +([A-Z0-9_]+) .*/\1 \2/p' |
		awk '$2 != "NOBITS" && $2 != "NULL" {print $1}' | grep -vxE '\.BTF|\.BTF\.base|\.shstrtab' | sort -u
}
dump_all() { # ELF DIR: every section of sections_of into DIR, one objcopy run
	local args=() s
	rm -rf "$2"; mkdir -p "$2"
	for s in $(sections_of "$1"); do args+=(--dump-section "$s=$2/$s"); done
	objcopy "${args[@]}" "$1" "$2.scratch" 2>/dev/null; rm -f "$2.scratch"
}
others_unchanged() { # ORIG NEW: same section names, and each section keeps its bytes
	[ "$(sections_of "$1")" = "$(sections_of "$2")" ] || { diff <(sections_of "$1") <(sections_of "$2"); return 1; }
	dump_all "$1" "$work/.before" && dump_all "$2" "$work/.after" && diff -r "$work/.before" "$work/.after" &&
		echo "$(ls "$work/.after" | wc -l) sections compared"
}
has_btf() { readelf -S -W "$1" | grep -E '^ *\[ *[0-9]+\] \.BTF +PROGBITS ' >/dev/null; }

##### A. 6.1 link-vmlinux.sh gen_btf, gobtf and pahole 1.24
section "A. Linux 6.1 link-vmlinux.sh gen_btf() (PAHOLE_FLAGS from scripts/pahole-flags.sh)"
for t in gobtf pahole; do
	tool=$gobtf; [ $t = pahole ] && tool=$(command -v pahole)
	d="$work/a-$t"
	rm -rf "$d"; mkdir -p "$d"
	cp "$nobtf" "$d/.tmp_vmlinux.btf"
	flags=$(PAHOLE=$tool sh "$k61/scripts/pahole-flags.sh")
	echo "$flags" > "$d/flags"
	ver=$(sh "$k61/scripts/pahole-version.sh" "$tool")
	echo "  $t: pahole-version.sh $ver, PAHOLE_FLAGS: $flags"
	(
		cd "$d"
		info() { printf '  %-7s %s\n' "$1" "$2"; }
		vmlinux_link() { :; } # the image is already linked: the copy
		is_enabled() { false; } # CONFIG_CPU_BIG_ENDIAN is not set on x86-64
		OBJCOPY=objcopy PAHOLE=$tool PAHOLE_FLAGS=$flags
		# shellcheck source=/dev/null
		. "$work/gen_btf-6.1.sh"
		gen_btf .tmp_vmlinux.btf .btf.vmlinux.bin.o
	) > "$d/log" 2>&1 && pass "$t: gen_btf ran" || { fail "$t: gen_btf"; cat "$d/log"; continue; }
	img="$d/.tmp_vmlinux.btf"
	out="$d/.btf.vmlinux.bin.o"
	check "$t: readelf: .btf.vmlinux.bin.o is ET_REL holding only an allocated .BTF" is_rel_btf_o "$out"
	check "$t: .BTF of the image equals .BTF of .btf.vmlinux.bin.o" same_section "$img" "$out"
	check "$t: every other section of the image keeps its bytes" others_unchanged "$nobtf" "$img"
	# shellcheck disable=SC2086
	"$tool" -J $flags --btf_encode_detached="$d/detached.btf" "$nobtf" >/dev/null 2>&1
	if [ $t = gobtf ]; then
		check "$t: .BTF equals --btf_encode_detached output with the same flags, byte for byte" section_is "$img" "$d/detached.btf"
	else # pahole 1.24 with -j picks among same-named functions by thread timing
		check "$t: .BTF equals --btf_encode_detached output with the same flags (btfdiff but for FUNC, FUNC_PROTO)" \
			"$btfdiff" -ignore-kinds FUNC,FUNC_PROTO "$img" "$d/detached.btf"
	fi
	check "$t: bpftool btf dump file .btf.vmlinux.bin.o" bpftool_reads btf dump file "$out"
	check "$t: kernel verifier (btfload) accepts .btf.vmlinux.bin.o" "$btfload" "$out"
done
# Same steps, same flags: gobtf's output and pahole 1.24's must be the same
# types. The flags differ per tool (pahole-flags.sh reads each tool's
# --version: v1.31 adds --skip_encoding_btf_inconsistent_proto
# --btf_gen_optimized), so gobtf also runs with pahole 1.24's flags. gobtf
# follows pahole 1.31, whose function rules differ from 1.24's (which
# functions get a FUNC, hence which FUNC_PROTOs exist) and which keeps the
# per-CPU variable at offset 0 that 1.24 drops (VAR, DATASEC); those kinds
# are compared with pahole 1.31's references in step C. Every other kind
# must match exactly.
flags124=$(cat "$work/a-pahole/flags")
# shellcheck disable=SC2086
"$gobtf" -J $flags124 --btf_encode_detached="$work/a-gobtf/flags124.btf" "$nobtf"
check "btfdiff: gobtf with pahole 1.24's PAHOLE_FLAGS ($flags124) equals pahole 1.24's gen_btf result but for FUNC, FUNC_PROTO, VAR, DATASEC" \
	"$btfdiff" -ignore-kinds FUNC,FUNC_PROTO,VAR,DATASEC "$work/a-gobtf/flags124.btf" "$work/a-pahole/.btf.vmlinux.bin.o"

##### B. 6.1 Makefile.modfinal
section "B. Linux 6.1 Makefile.modfinal: PAHOLE -J PAHOLE_FLAGS --btf_base vmlinux M.ko"
for t in gobtf pahole; do
	tool=$gobtf; [ $t = pahole ] && tool=$(command -v pahole)
	d="$work/a-$t"
	[ -f "$d/.tmp_vmlinux.btf" ] || continue
	flags=$(cat "$d/flags")
	ln -sf .tmp_vmlinux.btf "$d/vmlinux" # the finished vmlinux carries step A's .BTF
	for m in "${modules[@]}"; do
		cp "$cache/$m.ko" "$d/$m.ko"
		# shellcheck disable=SC2086
		(cd "$d" && LLVM_OBJCOPY=objcopy "$tool" -J $flags --btf_base vmlinux "$m.ko") > "$d/$m.log" 2>&1 ||
			{ fail "$t: $m.ko: $(tail -n 3 "$d/$m.log")"; continue; }
		check "$t: $m.ko: readelf shows .BTF" has_btf "$d/$m.ko"
		check "$t: $m.ko: every other section keeps its bytes" others_unchanged "$cache/$m.ko" "$d/$m.ko"
		check "$t: $m.ko: bpftool -B vmlinux btf dump file" bpftool_reads -B "$d/vmlinux" btf dump file "$d/$m.ko"
		check "$t: $m.ko: kernel verifier accepts vmlinux + split .BTF" "$btfload" "$d/$m.ko" --base "$d/vmlinux"
	done
done
for m in "${modules[@]}"; do
	[ -f "$work/a-pahole/$m.ko" ] && [ -f "$work/a-gobtf/$m.ko" ] || continue
	# shellcheck disable=SC2086
	(cd "$work/a-gobtf" && "$gobtf" -J $flags124 --btf_base flags124.btf --btf_encode_detached="$m.flags124.btf" "$cache/$m.ko")
	check "btfdiff: $m.ko, gobtf with pahole 1.24's flags equals pahole 1.24's split .BTF but for FUNC, FUNC_PROTO, VAR, DATASEC" \
		"$btfdiff" -ignore-kinds FUNC,FUNC_PROTO,VAR,DATASEC -base-a "$work/a-gobtf/flags124.btf" -base-b "$work/a-pahole/vmlinux" "$work/a-gobtf/$m.flags124.btf" "$work/a-pahole/$m.ko"
done

##### C. 6.7 to 6.18 Makefile.btf
section "C. Linux 6.7-6.18 Makefile.btf flags (pahole >= 1.30), gen_btf and Makefile.modfinal"
jobs=2 # JOBS: the -j of the kernel's make
flags67="-j$jobs --btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs --btf_features=attributes --lang_exclude=rust"
d="$work/c-gobtf"
rm -rf "$d"; mkdir -p "$d"
cp "$nobtf" "$d/.tmp_vmlinux.btf"
# shellcheck disable=SC2086
if (cd "$d" && LLVM_OBJCOPY=objcopy "$gobtf" -J $flags67 .tmp_vmlinux.btf &&
	objcopy --only-section=.BTF --set-section-flags .BTF=alloc,readonly --strip-all .tmp_vmlinux.btf .btf.vmlinux.bin.o 2>/dev/null &&
	printf '\1\0' | dd of=.btf.vmlinux.bin.o conv=notrunc bs=1 seek=16 status=none) > "$d/log" 2>&1; then
	pass "gobtf: gen_btf with $flags67"
	check "readelf: .btf.vmlinux.bin.o is ET_REL holding only an allocated .BTF" is_rel_btf_o "$d/.btf.vmlinux.bin.o"
	check "every other section of the image keeps its bytes" others_unchanged "$nobtf" "$d/.tmp_vmlinux.btf"
	check "bpftool btf dump file .btf.vmlinux.bin.o" bpftool_reads btf dump file "$d/.btf.vmlinux.bin.o"
	check "kernel verifier accepts .btf.vmlinux.bin.o" "$btfload" "$d/.btf.vmlinux.bin.o"
	check "btfdiff: equals pahole 1.31's kbuild reference" "$btfdiff" "$d/.btf.vmlinux.bin.o" "$refvm"
else
	fail "gobtf: gen_btf with $flags67: $(tail -n 3 "$d/log")"
fi
ln -sf .tmp_vmlinux.btf "$d/vmlinux"
distilled=0
"$gobtf" -J --supported_btf_features | tr ',' '\n' | grep -x distilled_base >/dev/null && distilled=1
[ $distilled = 1 ] || echo "  SKIP external modules (MODULE_PAHOLE_FLAGS=--btf_features=distilled_base): gobtf --supported_btf_features does not list distilled_base"
for m in "${modules[@]}"; do
	cp "$cache/$m.ko" "$d/$m.ko"
	# shellcheck disable=SC2086
	if (cd "$d" && LLVM_OBJCOPY=objcopy "$gobtf" -J $flags67 --btf_base vmlinux "$m.ko") > "$d/$m.log" 2>&1; then
		check "$m.ko in-tree: readelf shows .BTF" has_btf "$d/$m.ko"
		check "$m.ko in-tree: every other section keeps its bytes" others_unchanged "$cache/$m.ko" "$d/$m.ko"
		check "$m.ko in-tree: bpftool -B vmlinux btf dump file" bpftool_reads -B "$d/vmlinux" btf dump file "$d/$m.ko"
		check "$m.ko in-tree: kernel verifier accepts vmlinux + split" "$btfload" "$d/$m.ko" --base "$d/vmlinux"
		check "$m.ko in-tree: btfdiff equals pahole 1.31's split reference" \
			"$btfdiff" -base-a "$d/vmlinux" -base-b "$refvm" "$d/$m.ko" "$shared/reference/modules/$m.btf"
	else
		fail "$m.ko in-tree: $(tail -n 3 "$d/$m.log")"
	fi
	# External modules: MODULE_PAHOLE_FLAGS=--btf_features=distilled_base (pahole >= 1.28).
	[ $distilled = 1 ] || continue
	cp "$cache/$m.ko" "$d/$m.ext.ko"
	# shellcheck disable=SC2086
	if (cd "$d" && LLVM_OBJCOPY=objcopy "$gobtf" -J $flags67 --btf_features=distilled_base --btf_base vmlinux "$m.ext.ko") > "$d/$m.ext.log" 2>&1; then
		dump_btf "$d/$m.ext.ko" .BTF.base "$d/$m.base.btf" && dump_btf "$d/$m.ext.ko" .BTF "$d/$m.split.btf"
		check "$m.ko external: readelf shows .BTF.base" sh -c "readelf -S -W '$d/$m.ext.ko' | grep ' \.BTF\.base ' >/dev/null"
		check "$m.ko external: bpftool -B .BTF.base btf dump file .BTF" bpftool_reads -B "$d/$m.base.btf" btf dump file "$d/$m.split.btf"
		check "$m.ko external: kernel verifier accepts .BTF.base + .BTF" "$btfload" "$d/$m.split.btf" --base "$d/$m.base.btf"
	else
		fail "$m.ko external (distilled_base): $(tail -n 3 "$d/$m.ext.log")"
	fi
done

##### D. 7.x gen-btf.sh
section "D. Linux 7.x scripts/gen-btf.sh: detached output"
d="$work/d-gobtf"
rm -rf "$d"; mkdir -p "$d"
ln -sf "$nobtf" "$d/vmlinux.unstripped"
sum_before=$(sha256sum < "$nobtf")
# shellcheck disable=SC2086
if (cd "$d" && "$gobtf" -J $flags67 --btf_encode_detached=vmlinux.unstripped.BTF.1 vmlinux.unstripped &&
	cp vmlinux.unstripped.BTF.1 vmlinux.unstripped.BTF && # resolve_btfids' btf2btf step is not replayed
	echo "" | gcc -fno-lto -c -x c -o vmlinux.unstripped.btf.o - &&
	objcopy --add-section .BTF=vmlinux.unstripped.BTF --set-section-flags .BTF=alloc,readonly vmlinux.unstripped.btf.o &&
	objcopy --only-section=.BTF --strip-all vmlinux.unstripped.btf.o &&
	printf '\1\0' | dd of=vmlinux.unstripped.btf.o conv=notrunc bs=1 seek=16 status=none) > "$d/log" 2>&1; then
	pass "gobtf: gen_btf_data + gen_btf_o"
	check "the input ELF is unchanged (sha256)" test "$(sha256sum < "$nobtf")" = "$sum_before"
	check "readelf: vmlinux.unstripped.btf.o is ET_REL holding only an allocated .BTF" is_rel_btf_o "$d/vmlinux.unstripped.btf.o"
	check ".BTF of the object equals the detached file" section_is "$d/vmlinux.unstripped.btf.o" "$d/vmlinux.unstripped.BTF"
	[ -f "$work/c-gobtf/.tmp_vmlinux.btf" ] &&
		check "detached output equals step C's .BTF written into the ELF" section_is "$work/c-gobtf/.tmp_vmlinux.btf" "$d/vmlinux.unstripped.BTF.1"
	check "bpftool btf dump file" bpftool_reads btf dump file "$d/vmlinux.unstripped.BTF"
	check "kernel verifier accepts the detached BTF" "$btfload" "$d/vmlinux.unstripped.BTF"
	check "btfdiff: equals pahole 1.31's kbuild reference" "$btfdiff" "$d/vmlinux.unstripped.BTF" "$refvm"
else
	fail "gobtf: gen-btf.sh vmlinux steps: $(tail -n 3 "$d/log")"
fi
# Modules take the finished vmlinux (with .BTF) as --btf_base: step C's image,
# or else the detached BTF.
base="$d/vmlinux.unstripped.BTF"
[ -f "$work/c-gobtf/.tmp_vmlinux.btf" ] && base="$work/c-gobtf/.tmp_vmlinux.btf"
for m in "${modules[@]}"; do
	cp "$nomod/$m.ko" "$d/$m.ko"
	# shellcheck disable=SC2086
	if (cd "$d" && "$gobtf" -J $flags67 --btf_base "$base" --btf_encode_detached="$m.ko.BTF.1" "$m.ko" &&
		cp "$m.ko.BTF.1" "$m.ko.BTF" && objcopy --add-section .BTF="$m.ko.BTF" "$m.ko") > "$d/$m.log" 2>&1; then
		check "$m.ko: embedded .BTF equals the detached file" section_is "$d/$m.ko" "$d/$m.ko.BTF"
		check "$m.ko: every other section keeps its bytes" others_unchanged "$nomod/$m.ko" "$d/$m.ko"
		check "$m.ko: bpftool -B vmlinux btf dump file" bpftool_reads -B "$base" btf dump file "$d/$m.ko"
		check "$m.ko: kernel verifier accepts vmlinux + split" "$btfload" "$d/$m.ko.BTF" --base "$d/vmlinux.unstripped.BTF"
		check "$m.ko: btfdiff equals pahole 1.31's split reference" \
			"$btfdiff" -base-a "$d/vmlinux.unstripped.BTF" -base-b "$refvm" "$d/$m.ko.BTF" "$shared/reference/modules/$m.btf"
	else
		fail "$m.ko: $(tail -n 3 "$d/$m.log")"
	fi
done

##### E. bpf-next Makefile.btf: the layout feature
# Linux's scripts/Makefile.btf in bpf-next (June 2026) adds
# --btf_features=layout for pahole >= 1.31, which gobtf reports being: the
# vmlinux BTF gets a kind layout section (libbpf 1.8; kernels that predate
# it, this one among them, refuse such a header, so the kernel verifier is
# not asked), and modules are encoded on that BTF as their base.
section "E. bpf-next Makefile.btf: --btf_features=layout (kind layout section)"
e="$work/e-gobtf"
rm -rf "$e"; mkdir -p "$e"
# hdr_len FILE and layout_len FILE: those header fields of a raw BTF file.
hdr_len() { od -An -tu4 -j4 -N4 "$1" | tr -d ' '; }
layout_len() { od -An -tu4 -j28 -N4 "$1" | tr -d ' '; }
has_layout() { echo "hdr_len $(hdr_len "$1"), layout_len $(layout_len "$1")"; [ "$(hdr_len "$1")" = 32 ] && [ "$(layout_len "$1")" = 80 ]; }
# shellcheck disable=SC2086
if (cd "$e" && "$gobtf" -J $flags67 --btf_features=layout --btf_encode_detached=vmlinux.BTF "$nobtf") > "$e/log" 2>&1; then
	pass "gobtf: vmlinux with the layout feature"
	check "the header locates an 80-byte layout section (20 kinds)" has_layout "$e/vmlinux.BTF"
	check "bpftool btf dump file (libbpf without the section reads past it)" bpftool_reads btf dump file "$e/vmlinux.BTF"
	check "btfdiff: equals pahole 1.31's kbuild reference" "$btfdiff" "$e/vmlinux.BTF" "$refvm"
	for m in "${modules[@]}"; do
		# shellcheck disable=SC2086
		if (cd "$e" && "$gobtf" -J $flags67 --btf_features=layout --btf_base vmlinux.BTF --btf_encode_detached="$m.ko.BTF" "$nomod/$m.ko") > "$e/$m.log" 2>&1; then
			check "$m.ko: split BTF on the layout base has no section of its own" test "$(layout_len "$e/$m.ko.BTF")" = 0
			[ -f "$d/$m.ko.BTF" ] &&
				check "$m.ko: equals step D's split BTF (base without the section)" cmp "$e/$m.ko.BTF" "$d/$m.ko.BTF"
		else
			fail "$m.ko on the layout base: $(tail -n 3 "$e/$m.log")"
		fi
	done
else
	fail "gobtf: vmlinux with the layout feature: $(tail -n 3 "$e/log")"
fi

section "done"
if [ "$fails" -gt 0 ]; then
	echo "kbuild-steps: FAIL: $fails checks failed"
	exit 1
fi
echo "kbuild-steps: PASS"
exit
}
