#!/usr/bin/env bash
# Benchmarks oomdoc against grep on the same page-cached logs, in one run.
#
#   bash bench/run.sh            # 1 GiB and 128 MiB logs, 7 rounds
#   SIZES="256MiB" ROUNDS=5 bash bench/run.sh
#
# For each size it generates a deterministic 8-rank training log
# (bench/genlog), warms the page cache, then alternates
# `oomdoc --format json FILE` with `LC_ALL=C grep -c 'out of memory' FILE`
# and prints each command's median wall time, the ratio of the medians and
# oomdoc's peak resident memory (/usr/bin/time -v). It also times a 5 KB
# pasted log from process start to exit (median of 50 runs).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-"128MiB 1GiB"}
ROUNDS=${ROUNDS:-7}
OUTDIR=${OUTDIR:-bench/out}
mkdir -p "$OUTDIR"
go build -o "$OUTDIR/oomdoc" ./cmd/oomdoc
go build -o "$OUTDIR/genlog" ./bench/genlog

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

for size in $SIZES; do
  log="$OUTDIR/train-$size.log"
  [ -s "$log" ] || "$OUTDIR/genlog" -size "$size" -ranks 8 >"$log"
  cat "$log" >/dev/null   # page cache
  "$OUTDIR/oomdoc" --format json "$log" >/dev/null
  LC_ALL=C grep -c 'out of memory' "$log" >/dev/null
  : >"$OUTDIR/oomdoc.times"; : >"$OUTDIR/grep.times"
  for _ in $(seq "$ROUNDS"); do
    t0=$(now); "$OUTDIR/oomdoc" --format json "$log" >/dev/null; t1=$(now)
    echo "$t1 - $t0" | bc -l >>"$OUTDIR/oomdoc.times"
    t0=$(now); LC_ALL=C grep -c 'out of memory' "$log" >/dev/null; t1=$(now)
    echo "$t1 - $t0" | bc -l >>"$OUTDIR/grep.times"
  done
  o=$(median <"$OUTDIR/oomdoc.times"); g=$(median <"$OUTDIR/grep.times")
  rss=$( { /usr/bin/time -v "$OUTDIR/oomdoc" --format json "$log" >/dev/null; } 2>&1 | awk -F: '/Maximum resident/ {gsub(/ /,"",$2); print $2}')
  bytes=$(stat -c %s "$log")
  printf '%-7s %6d MiB  oomdoc %.3f s  grep %.3f s  ratio %.2f  oomdoc peak RSS %d KiB  (%d rounds)\n' \
    "$size" $((bytes >> 20)) "$o" "$g" "$(echo "$o / $g" | bc -l)" "$rss" "$ROUNDS"
done

paste="$OUTDIR/paste-5k.log"
ref=fixtures/reference/ovis2.5-2b-visual-softmax.log
pad=$((5120 - $(stat -c %s "$ref")))
{ printf '%*s' "$((pad - 1))" '' | tr ' ' '.' | fold -w 79; echo; cat "$ref"; } >"$paste"
: >"$OUTDIR/paste.times"
for _ in $(seq 50); do
  t0=$(now); "$OUTDIR/oomdoc" --color=never "$paste" >/dev/null; t1=$(now)
  echo "$t1 - $t0" | bc -l >>"$OUTDIR/paste.times"
done
printf 'paste   %6d B    oomdoc %.1f ms median, process start to exit (50 runs)\n' "$(stat -c %s "$paste")" "$(echo "$(median <"$OUTDIR/paste.times") * 1000" | bc -l)"
