#!/usr/bin/env bash
# `pnpm test:flakes`: the CI level (`pnpm test:all`) three times in a row while a CPU hog holds
# one of the machine's two cores, each run with its files shuffled by a fresh seed (Vitest
# `sequence.shuffle`), a fresh seed for every property (FC_SEED) and rotating sample
# (`KCORE_TEST_SEED`). Each run prints the seeds that repeat it. Exits non-zero when any run
# fails. Needs what `pnpm test:all` needs (DATABASE_URL for the PostgreSQL half; .ci/run sets it).
set -uo pipefail
cd "$(dirname "$0")/.."
RUNS=${FLAKE_RUNS:-3}

node -e 'for (;;) {}' &
HOG=$!
trap 'kill $HOG 2>/dev/null' EXIT
echo "flakes: a CPU hog (pid $HOG) holds one core for all $RUNS runs"

failed=0
for run in $(seq "$RUNS"); do
  seed=$(node -p 'Math.floor(Math.random() * 2 ** 31)')
  echo "flakes: run $run of $RUNS: --sequence.seed=$seed KCORE_TEST_SEED=$seed FC_SEED=$seed"
  start=$SECONDS
  if KCORE_TEST_SEED=$seed FC_SEED=$seed pnpm test:all --sequence.shuffle.files --sequence.seed="$seed"; then
    echo "flakes: run $run passed in $((SECONDS - start)) s"
  else
    echo "flakes: run $run FAILED in $((SECONDS - start)) s (repeat: KCORE_TEST_SEED=$seed FC_SEED=$seed pnpm test:all --sequence.shuffle.files --sequence.seed=$seed)"
    failed=1
  fi
done
exit $failed
