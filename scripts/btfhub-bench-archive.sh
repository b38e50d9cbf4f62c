#!/usr/bin/env bash
# Builds a BTFHub-style archive of real kernels' BTF to bench
# "gobtf gen min_core_btf --archive" on (make bench's archive row):
#
#   $CACHE/btfhub-bench/archive/debian/12/<arch>/<kernel>.btf.tar.xz
#
# laid out and compressed as BTFHub lays out its archive (a tar, xz-compressed,
# of one <kernel>.btf: the raw .BTF of the kernel's vmlinux). The kernels are
# Debian 12's 6.1 images, ABIs 47 50 53 54 55 56 57, flavours amd64,
# cloud-amd64 and rt-amd64 (apt-get download, from the configured mirrors)
# and arm64, cloud-arm64 and rt-arm64 (the same versions' pool files, fetched
# from deb.debian.org): up to 42 kernels. Each package is fetched once: its
# .BTF is kept in $CACHE/btfhub-bench/btf/<arch>/<kernel>.btf and the .deb is
# deleted. A package that cannot be fetched is skipped with a message.
#
# .BTF is taken from /boot/vmlinuz-<kernel>: an x86 bzImage's payload (the
# setup header's payload_offset and payload_length) is decompressed to the
# vmlinux ELF, an arm64 vmlinuz is the raw Image (gzip-compressed
# on some distributions; Debian's is not); in both, .BTF
# is found by its magic (0xeB9F) and a header that fits the bytes that follow.
#
#   scripts/btfhub-bench-archive.sh [ABI...]     (default: 47 50 53 54 55 56 57)
#
# Prints the archive's path last. Needs apt-get, curl, dpkg-deb, python3, xz, lz4, zstd.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/corpus.sh
ABIS=("$@")
[ ${#ABIS[@]} -gt 0 ] || ABIS=(47 50 53 54 55 56 57)
BENCH=$CACHE/btfhub-bench
BTFDIR=$BENCH/btf
ARCHIVE=$BENCH/archive
MIRRORS=(http://deb.debian.org/debian-security http://deb.debian.org/debian)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# findbtf VMLINUZ OUT ARCH: writes the .BTF inside a vmlinuz to OUT.
findbtf() {
  python3 - "$1" "$2" "$3" <<'EOF'
import gzip, lzma, struct, subprocess, sys
src, out, arch = sys.argv[1:4]
data = open(src, "rb").read()

def decompress(blob):
    if blob[:2] == b"\x1f\x8b":
        return gzip.decompress(blob)
    if blob[:6] == b"\xfd7zXZ\x00":
        return lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(blob)  # the first stream: Kbuild appends the size
    if blob[:3] == b"\x5d\x00\x00":
        return lzma.LZMADecompressor(format=lzma.FORMAT_ALONE).decompress(blob)
    if blob[:4] == b"\x28\xb5\x2f\xfd":
        return subprocess.run(["zstd", "-dc"], input=blob, stdout=subprocess.PIPE, check=True).stdout
    if blob[:4] == b"\x02\x21\x4c\x18":  # lz4's legacy frame, as Kbuild's lz4 -l writes it
        return subprocess.run(["lz4", "-dc"], input=blob, stdout=subprocess.PIPE).stdout
    if blob[:2] == b"MZ":  # an arm64 Image as it is (its EFI stub's header)
        return blob
    sys.exit("%s: unknown compression %s" % (src, blob[:6].hex()))

if arch == "x86_64":
    # The bzImage setup header: setup_sects at 0x1f1, "HdrS" at 0x202,
    # payload_offset and payload_length at 0x248, from the start of the
    # protected-mode code ((setup_sects + 1) sectors in).
    if data[0x202:0x206] != b"HdrS":
        sys.exit("%s: not a bzImage" % src)
    sects = data[0x1f1] or 4
    off, length = struct.unpack_from("<II", data, 0x248)
    start = (sects + 1) * 512 + off
    # The payload's last 4 bytes (gzip's size) may be part of length.
    image = decompress(data[start:start + length])
else:
    image = decompress(data)

best = None
i = image.find(b"\x9f\xeb\x01\x00")
while i >= 0:
    if i + 24 <= len(image):
        hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from("<IIIII", image, i + 4)
        end = i + hdr_len + str_off + str_len
        if (hdr_len in (24, 32) and type_off == 0 and str_off == type_len and str_len > 0
                and end <= len(image) and image[i + hdr_len + str_off] == 0 and image[end - 1] == 0):
            if best is None or end - i > best[1] - best[0]:
                best = (i, end)
    i = image.find(b"\x9f\xeb\x01\x00", i + 1)
if best is None:
    sys.exit("%s: no .BTF found" % src)
open(out, "wb").write(image[best[0]:best[1]])
EOF
}

# fetch PKG ARCH: the .deb of PKG for ARCH into $WORK, its path printed.
fetch() {
  local pkg=$1 arch=$2 amd=${1//arm64/amd64} file
  file=$(apt-cache show --no-all-versions "$amd" 2>/dev/null | sed -n 's/^Filename: //p' | head -1)
  [ -n "$file" ] || return 1
  if [ "$arch" = x86_64 ]; then
    (cd "$WORK" && apt-get download -q "$pkg" >/dev/null 2>&1) || return 1
    ls "$WORK"/"$pkg"_*.deb
    return
  fi
  file=${file//amd64/arm64}
  for m in "${MIRRORS[@]}"; do
    if curl -sfL -o "$WORK/$(basename "$file")" "$m/$file"; then
      echo "$WORK/$(basename "$file")"
      return
    fi
  done
  return 1
}

for abi in "${ABIS[@]}"; do
  for flavour in amd64 cloud-amd64 rt-amd64 arm64 cloud-arm64 rt-arm64; do
    kernel=6.1.0-$abi-$flavour
    case $flavour in *arm64) arch=arm64 ;; *) arch=x86_64 ;; esac
    btf=$BTFDIR/$arch/$kernel.btf
    if [ ! -s "$btf" ]; then
      pkg=linux-image-$kernel-unsigned
      if ! deb=$(fetch "$pkg" "$arch"); then
        echo "btfhub-bench-archive: $pkg ($arch) cannot be fetched; skipped" >&2
        continue
      fi
      mkdir -p "$BTFDIR/$arch"
      dpkg-deb --fsys-tarfile "$deb" | tar -xO "./boot/vmlinuz-$kernel" > "$WORK/vmlinuz"
      rm -f "$deb"
      findbtf "$WORK/vmlinuz" "$btf.tmp" "$arch"
      mv -f "$btf.tmp" "$btf"
      echo "btfhub-bench-archive: $kernel ($arch): $(stat -c %s "$btf") bytes of .BTF" >&2
    fi
    out=$ARCHIVE/debian/12/$arch/$kernel.btf.tar.xz
    if [ ! -s "$out" ] || [ "$btf" -nt "$out" ]; then
      mkdir -p "$(dirname "$out")"
      tar -C "$(dirname "$btf")" -cJf "$out.tmp" "$kernel.btf"
      mv -f "$out.tmp" "$out"
    fi
  done
done
echo "btfhub-bench-archive: $(find "$ARCHIVE" -name '*.btf.tar.xz' | wc -l) kernels" >&2
echo "$ARCHIVE"
