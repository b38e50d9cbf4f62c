# Sourced by scripts/bench.sh and scripts/pgo.sh: where the shared inputs are
# (SHARED, ../shared unless GOBTF_SHARED says otherwise) and where their
# decompressed copies go (CACHE, made if missing), and unxz_cached.
SHARED=${GOBTF_SHARED:-$(pwd)/../shared}
CACHE=${GOBTF_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gobtf-test}
mkdir -p "$CACHE"

unxz_cached() { # unxz_cached SRC.xz -> prints path of the decompressed copy
  local dst="$CACHE/$(basename "${1%.xz}")"
  if [ ! -s "$dst" ] || [ "$1" -nt "$dst" ]; then
    xz -dc "$1" > "$dst.tmp" && mv -f "$dst.tmp" "$dst"
  fi
  echo "$dst"
}
