#!/usr/bin/env bash
# Runs every README ```sh block that uses kvscope-cli, as a user would from a fresh clone
# (examples/ and tests/data are the repository's own), each block as one script, and fails on
# the first command that fails. The quick-start blocks (install, build) are left to CI itself.
# usage: run_readme_commands.sh KVSCOPE_CLI REPO_ROOT
set -euo pipefail
cli=$1
root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$root/examples" "$work/examples"
ln -s "$root/tests" "$work/tests"
cd "$work"
awk -v dir="$work" '
  /^```sh/ { n++; f = 1; file = sprintf("%s/block%02d.sh", dir, n); next }
  /^```/   { f = 0; next }
  f        { print > file }
' "$root/README.md"
# One shell, as a user pasting the blocks into one terminal: a variable set in one block
# (B=...) serves the next.
blocks=0
script="$work/readme.sh"
{ echo 'set -euo pipefail'; echo "kvscope-cli() { \"$cli\" \"\$@\"; }"; } > "$script"
for block in "$work"/block*.sh; do
  grep -q 'kvscope-cli ' "$block" || continue
  grep -q 'install-deps.sh' "$block" && continue
  blocks=$((blocks + 1))
  { echo "echo '--- README $(basename "$block")' >&2"; echo 'set -x'; cat "$block"; echo 'set +x'; } >> "$script"
done
if ! bash "$script" > "$work/out" 2> "$work/err"; then
  echo "a README command failed:" >&2
  tail -30 "$work/err" >&2
  exit 1
fi
if (( blocks < 3 )); then
  echo "only $blocks README blocks found: the extraction is broken" >&2
  exit 1
fi
echo "$blocks README blocks ran"
