#!/usr/bin/env bash
# Builds the .deb and the source tarball from a configured, built tree and checks them:
# desktop-file-validate, appstreamcli validate, lintian (no errors or warnings), the package's
# contents, and its programs run from the unpacked package (`--install`: apt-get install it,
# as root, and run them from /usr/bin). Needs lintian and desktop-file-utils
# (packaging/install-deps.sh --package).
#   packaging/check-package.sh [--install] [BUILD_DIR]   (default build/dev)
set -euo pipefail
install=0
if [[ "${1:-}" == "--install" ]]; then install=1; shift; fi
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build/dev}" && pwd)"
fail() { echo "check-package: $*" >&2; exit 1; }

desktop-file-validate "$root/resources/io.kvscope.kvscope.desktop"
appstreamcli validate --no-net "$root/resources/io.kvscope.kvscope.metainfo.xml"

cd "$build"
rm -f kvscope_*.deb kvscope-*-Source.tar.gz
cpack -G DEB > cpack.log || { cat cpack.log >&2; fail "cpack -G DEB failed"; }
deb="$(ls kvscope_*.deb)"
# lintian: E: and W: tags fail the check (I:/P: are information).
lintian_out="$(lintian "$deb" 2>&1 | grep -v 'running with root privileges' || true)"
[[ -n "$lintian_out" ]] && echo "$lintian_out"
if grep -qE '^(E|W): ' <<<"$lintian_out"; then fail "lintian reports errors or warnings"; fi

contents="$(dpkg-deb -c "$deb")"
for f in usr/bin/kvscope usr/bin/kvscope-cli usr/share/man/man1/kvscope.1.gz \
         usr/share/man/man1/kvscope-cli.1.gz usr/share/bash-completion/completions/kvscope-cli \
         usr/share/applications/io.kvscope.kvscope.desktop usr/share/metainfo/io.kvscope.kvscope.metainfo.xml \
         usr/share/icons/hicolor/scalable/apps/kvscope.svg usr/share/icons/hicolor/256x256/apps/kvscope.png \
         usr/share/doc/kvscope/copyright; do
  grep -q " \./$f\$" <<<"$contents" || fail "$deb lacks /$f"
done

if [[ $install -eq 1 ]]; then
  apt-get install -y -qq "./$deb" > /dev/null
  cli=/usr/bin/kvscope-cli
  man -w kvscope-cli > /dev/null || fail "man kvscope-cli finds no page"
else
  unpacked="$(mktemp -d)"
  trap 'rm -rf "$unpacked"' EXIT
  dpkg-deb -x "$deb" "$unpacked"
  cli="$unpacked/usr/bin/kvscope-cli"
fi
"$cli" --version
"$cli" simulate --load 'gen:rate=20,count=50,seed=1' --model tiny --budget 4MiB --quiet

cpack --config CPackSourceConfig.cmake > cpack-source.log || { cat cpack-source.log >&2; fail "source tarball failed"; }
tarball="$(ls kvscope-*-Source.tar.gz)"
listing="$(tar -tzf "$tarball")"
grep -qE '^[^/]+/(build|\.git)/' <<<"$listing" && fail "$tarball contains a build tree or .git"
grep -qE '^[^/]+/CMakeLists.txt$' <<<"$listing" || fail "$tarball lacks CMakeLists.txt"
echo "check-package: $deb and $tarball are fine"
