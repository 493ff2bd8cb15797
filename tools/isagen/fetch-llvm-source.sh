#!/usr/bin/env bash
# Fetches the AMDGPU TableGen sources of Debian's llvm-toolchain-22 source package into a scratch folder.
# Usage: fetch-llvm-source.sh WORKDIR      (WORKDIR/src/llvm/... is created)
# Uses a private apt configuration so the system's apt state is untouched. Debian's patches do not
# touch llvm/lib/Target/AMDGPU, so the orig tarball is the source of truth; its checksum is pinned.
set -euo pipefail
work=${1:?usage: fetch-llvm-source.sh WORKDIR}
version=22.1.8
orig=llvm-toolchain-22_${version}.orig.tar.xz
sha=b49b9277aef97616320b2da259e1f8174c65b0ce2fbe2e8629644a97693402fe
mkdir -p "$work"/apt/{lists/partial,cache/archives/partial} "$work"/dl "$work"/src
work=$(cd "$work" && pwd)

if [ ! -f "$work/dl/$orig" ] || ! echo "$sha  $work/dl/$orig" | sha256sum -c --quiet - 2>/dev/null; then
  # Mirror from the system's own deb822 sources, so no host is named here.
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$mirror" ] || mirror=$(awk '$1=="deb" {print $2; exit}' /etc/apt/sources.list)
  mirror=${mirror%/}
  cat > "$work/apt/sources.list" <<LIST
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror unstable main
LIST
  A=(-o Dir::Etc::SourceList="$work/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o Dir::State::Lists="$work/apt/lists" -o Dir::Cache="$work/apt/cache")
  apt-get "${A[@]}" update -q
  # The orig tarball of unstable's 1:22.1.8-1 is byte-identical to bookworm-security's (same sha256).
  (cd "$work/dl" && apt-get "${A[@]}" source --download-only "llvm-toolchain-22=1:${version}-1" || true)
  echo "$sha  $work/dl/$orig" | sha256sum -c - || { echo "fetch-llvm-source: checksum mismatch for $orig" >&2; exit 1; }
fi

if [ ! -f "$work/src/llvm/lib/Target/AMDGPU/AMDGPU.td" ]; then
  p=llvm-toolchain-22_${version}
  tar -C "$work/src" -xJf "$work/dl/$orig" --strip-components=1 --wildcards \
    "$p/llvm/lib/Target/AMDGPU/*.td" "$p/llvm/include/llvm/*" "$p/llvm/LICENSE.TXT"
fi
echo "$work/src"
