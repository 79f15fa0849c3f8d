#!/usr/bin/env bash
# `npm run check:old-node`: what someone meets with a Node older than package.json's engines.node.
# In a temporary copy of package.json (its dependencies left out) and scripts/require-node.cjs
# (removed after), with only that Node and its npm in PATH: `npm install` fails with the one line
# of scripts/require-node.cjs saying what to run (with the dependencies, npm fetches them first and
# then runs the same preinstall; leaving them out keeps this check from a full install); `npm start` and
# `npm test` fail with that line at once; and the install the line names, `npm install --prefix
# .node node@24`, works there (the project's own preinstall does not run for another prefix) and
# brings a Node that passes. The old Node is $OLD_NODE, else /usr/bin/node; when it is not older,
# there is nothing to check. Needs the npm registry, or npm's cache after an `npm ci`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

old_node=${OLD_NODE:-/usr/bin/node}
if [[ ! -x $old_node ]]; then
  echo "check:old-node: no Node at $old_node (set OLD_NODE): nothing to check"
  exit 0
fi
old_version=$("$old_node" --version)
required=$(node -p 'require("./package.json").engines.node') # ">=22.12"
[[ $required =~ ^\>=([0-9]+)\.([0-9]+)$ ]] || { echo "check:old-node: engines.node is \"$required\", not >=MAJOR.MINOR"; exit 1; }
need_major=${BASH_REMATCH[1]} need_minor=${BASH_REMATCH[2]}
v=${old_version#v} major=${v%%.*} minor=${v#*.} minor=${minor%%.*}
if ((major > need_major || (major == need_major && minor >= need_minor))); then
  echo "check:old-node: $old_node is $old_version, not older than $need_major.$need_minor: nothing to check"
  exit 0
fi
old_bin=$(dirname "$old_node")
[[ -x $old_bin/npm ]] || { echo "check:old-node: no npm beside $old_node"; exit 1; }

expected="gigmarket needs Node $need_major.$need_minor or newer, and this is Node $old_version: run \`npm install --prefix .node node@24 && export PATH=\$PWD/.node/node_modules/.bin:\$PATH\`, then \`npm install\` again."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/scripts"
# package.json without its dependencies: the same scripts and engines, nothing to fetch first.
node -e 'const p = require("./package.json"); delete p.dependencies; delete p.devDependencies; delete p.optionalDependencies; process.stdout.write(JSON.stringify(p, null, 2))' >"$dir/package.json"
cp scripts/require-node.cjs "$dir/scripts/"
# A shell with the old Node only: none of this run's npm settings (npm_* variables) or PATH, the
# rest of the environment kept (a machine's CA certificates and proxy, without which npm waits on
# the registry for minutes).
in_old_shell() {
  (
    cd "$dir"
    while read -r name; do unset "$name"; done < <(compgen -e | grep -i '^npm_')
    PATH="$old_bin:/usr/bin:/bin" "$@"
  )
}
failures=0

# expect_refusal <what> <command...>: exits non-zero, and says the line exactly once.
expect_refusal() {
  local what=$1 code=0
  shift
  in_old_shell "$@" >"$dir/out.txt" 2>&1 || code=$?
  if ((code == 0)); then
    echo "FAIL: $what on Node $old_version succeeded"
    failures=$((failures + 1))
  elif [[ $(grep -cFx -- "$expected" "$dir/out.txt") != 1 ]]; then
    echo "FAIL: $what on Node $old_version exited $code without the line; its last lines:"
    tail -n 8 "$dir/out.txt" | sed 's/^/  /'
    failures=$((failures + 1))
  else
    echo "ok: $what on Node $old_version exits $code with the line"
  fi
}

echo "check:old-node: $old_node ($old_version, npm $(in_old_shell npm --version)); expecting:"
echo "  $expected"
expect_refusal "npm install" npm install --no-audit --no-fund
expect_refusal "npm start" npm start
expect_refusal "npm test" npm test

# The remedy the line names, in the same directory and shell.
if in_old_shell npm install --prefix .node --no-audit --no-fund --loglevel=error node@24 >"$dir/out.txt" 2>&1 \
  && ! grep -qF -- "$expected" "$dir/out.txt" \
  && in_old_shell .node/node_modules/.bin/node scripts/require-node.cjs; then
  echo "ok: npm install --prefix .node node@24 works on Node $old_version, and its Node ($(in_old_shell .node/node_modules/.bin/node --version)) passes"
else
  echo "FAIL: npm install --prefix .node node@24 on Node $old_version, or its Node; its last lines:"
  tail -n 8 "$dir/out.txt" | sed 's/^/  /'
  failures=$((failures + 1))
fi
((failures == 0))
