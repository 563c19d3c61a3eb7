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
dbs=()
cleanup() {
  for db in "${dbs[@]}"; do
    psql "$DATABASE_URL" -qc "drop database if exists \"$db\" with (force)" >/dev/null || true
  done
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

# Jobs run side by side (each tsc, each Node's run: they use one core each and wait on disk and
# the database in turns); each one's output is printed whole once it is done, in order.
parallel() {
  local names=("$@") pids=() failed=0
  for name in "${names[@]}"; do
    "job_$name" >"$work/job-$name.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!names[@]}"; do
    if wait "${pids[$i]}"; then
      cat "$work/job-${names[$i]}.log"
      echo "ok ${names[$i]}"
    else
      cat "$work/job-${names[$i]}.log"
      echo "FAILED ${names[$i]}"
      failed=1
    fi
  done
  return $failed
}

step "type-check: node16, bundler, nodenext (emits out/), side by side"
job_node16() { npx tsc -p tsconfig.node16.json; }
job_bundler() { npx tsc -p tsconfig.bundler.json; }
job_nodenext() { npx tsc -p tsconfig.nodenext.json; }
parallel node16 bundler nodenext

# One Node's run; on PostgreSQL in a throwaway database of its own.
run_all() {
  local node="$1" db="$2"
  "$node" --version
  "$node" out/engine.js
  "$node" out/handler.js
  DATABASE_URL= "$node" out/store.js
  if [ -n "$db" ]; then
    psql "$DATABASE_URL" -qc "create database \"$db\""
    DATABASE_URL="${DATABASE_URL%/*}/$db" "$node" out/store.js
  fi
  "$node" node_modules/@kcore/cli/bin/kcore.js --version
}

# The node@N package installs the binary; one cached install per major.
install_node() {
  local prefix="$work/node-$1"
  npm install --prefer-offline --prefix "$prefix" "node@$1" >"$prefix.log" 2>&1 || {
    cat "$prefix.log"
    return 1
  }
}

versions=(${KCORE_CONSUMER_NODES-22 24})
step "run on $(node --version) (this machine) and on node@${versions[*]:-(none)} (npm packages), side by side"
stamp="$(date +%s)_$$"
db_for() { if [ -n "${DATABASE_URL:-}" ]; then echo "kcore_consumer_${stamp}_$1"; fi; }
job_this() { run_all node "$(db_for this)"; }
jobs=(this)
for version in "${versions[@]}"; do
  eval "job_node$version() { install_node $version && run_all \"$work/node-$version/node_modules/.bin/node\" \"\$(db_for $version)\"; }"
  jobs+=("node$version")
done
if [ -n "${DATABASE_URL:-}" ]; then
  for job in "${jobs[@]}"; do dbs+=("$(db_for "${job#node}")"); done
fi
parallel "${jobs[@]}"

step "consumer check passed"
