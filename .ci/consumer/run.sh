#!/usr/bin/env bash
# The packages as an outside project gets them: every workspace package packed (`pnpm pack`, what
# `pnpm publish` would upload), installed with npm into a fresh project outside the workspace,
# then, there:
#   - attw (are the types wrong) on every tarball, ESM-only profile (we ship no CommonJS);
#   - a strict consumer (skipLibCheck false, exactOptionalPropertyTypes) type-checked under
#     node16, nodenext and bundler resolution, with @ts-expect-error lines that fail if a
#     public type degrades to `any`;
#   - the nodenext build run: the engine snippet, the handler in Hono and on node:http, a store
#     script on PGlite, and on PostgreSQL when DATABASE_URL is set (in a throwaway database);
#   - the same run on each Node of KCORE_CONSUMER_NODES (default "22 24"; npm's `node@N` package,
#     cached after the first run; set it empty to use only this machine's Node).
# Run: pnpm test:consumer   (builds what is stale first, with type declarations).
# `run.sh --attw-only` stops after attw (what `pnpm lint` runs); `run.sh --no-attw` skips it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d)"
db=""
cleanup() {
  if [ -n "$db" ]; then
    psql "$DATABASE_URL" -qc "drop database if exists \"$db\" with (force)" >/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
started=$SECONDS
step() { printf '\n== %s (%ss)\n' "$*" "$((SECONDS - started))"; }
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

step "build (stale packages, with declarations)"
(cd "$root" && node packages/cli/scripts/build-changed.mjs --types)

step "pack"
(cd "$root" && pnpm -r --filter './packages/*' pack --pack-destination "$work/packs" >/dev/null)
ls "$work/packs"

# `--no-attw`: leave attw out (.ci/run, whose `pnpm lint` ran it on the same tarballs).
if [ "${1:-}" != --no-attw ]; then
  step "attw --profile esm-only"
  for tarball in "$work"/packs/*.tgz; do
    if ! out=$(cd "$root" && pnpm exec attw "$tarball" --profile esm-only --format ascii 2>&1); then
      printf '%s\n' "$out"
      exit 1
    fi
    echo "ok $(basename "$tarball")"
  done
fi
if [ "${1:-}" = --attw-only ]; then exit 0; fi

step "install the tarballs with npm in $work/consumer"
mkdir "$work/consumer"
cp -r "$here/src" "$here"/tsconfig*.json "$work/consumer/"
cd "$work/consumer"
printf '{ "name": "kcore-consumer", "private": true, "type": "module" }\n' >package.json
npm install --prefer-offline "$work"/packs/*.tgz \
  hono@^4 typescript@~5.9.3 @types/node@^22 >npm-install.log 2>&1 || {
  cat npm-install.log
  exit 1
}
# Packages whose engines this Node is outside of (Node 20: ical-generator and so ours, >=22).
echo "npm: $(grep -c 'EBADENGINE Unsupported' npm-install.log || true) EBADENGINE warnings on $(node --version)"

step "type-check: node16, bundler, nodenext (emits out/)"
for mode in node16 bundler nodenext; do
  npx tsc -p "tsconfig.$mode.json"
  echo "ok $mode"
done

run_all() {
  local node="$1"
  "$node" out/engine.js
  "$node" out/handler.js
  DATABASE_URL= "$node" out/store.js
  if [ -n "${DATABASE_URL:-}" ]; then
    DATABASE_URL="$pg_url" "$node" out/store.js
  fi
  "$node" node_modules/@kcore/cli/bin/kcore.js --version
}

if [ -n "${DATABASE_URL:-}" ]; then
  db="kcore_consumer_$(date +%s)_$$"
  psql "$DATABASE_URL" -qc "create database \"$db\""
  pg_url="${DATABASE_URL%/*}/$db"
fi

step "run on $(node --version) (this machine)"
run_all node

for version in ${KCORE_CONSUMER_NODES-22 24}; do
  step "run on node@$version (npm package)"
  # The node@N package installs the binary; one cached install per major.
  prefix="$work/node-$version"
  npm install --prefer-offline --prefix "$prefix" "node@$version" >"$prefix.log" 2>&1 || {
    cat "$prefix.log"
    exit 1
  }
  "$prefix/node_modules/.bin/node" --version
  if [ -n "${DATABASE_URL:-}" ]; then
    psql "$DATABASE_URL" -qc "drop database \"$db\" with (force)" -c "create database \"$db\""
  fi
  run_all "$prefix/node_modules/.bin/node"
done

step "consumer check passed"
