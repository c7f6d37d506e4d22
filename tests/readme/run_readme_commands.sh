#!/usr/bin/env bash
# Runs every `kvscope-cli ...` command of the README's ```sh blocks, as a user would from a fresh
# clone (examples/ and tests/data are the repository's own), and fails on the first that fails.
# usage: run_readme_commands.sh KVSCOPE_CLI REPO_ROOT
set -euo pipefail
cli=$1
root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$root/examples" "$work/examples"
ln -s "$root/tests" "$work/tests"
cd "$work"
# The sh blocks, continuation lines joined, comments after the command dropped.
commands=$(awk '/^```sh/{f=1;next} /^```/{f=0} f' "$root/README.md" |
           sed -e ':a' -e '/\\$/N; s/\\\n//; ta' |
           grep -E '^kvscope-cli ' | sed -e 's/[[:space:]]\{2,\}#.*$//')
count=0
while IFS= read -r line; do
  [[ -z "$line" ]] && continue
  count=$((count + 1))
  echo "README command $count: $line"
  if ! eval "\"$cli\"${line#kvscope-cli}" > "out.$count" 2> "err.$count"; then
    echo "FAILED (exit $?): $line" >&2
    cat "err.$count" >&2
    exit 1
  fi
done <<< "$commands"
if (( count < 5 )); then
  echo "only $count README commands found: the extraction is broken" >&2
  exit 1
fi
echo "$count README commands ran"
