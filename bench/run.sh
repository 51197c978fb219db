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
# pasted log from process start to exit (median of 50 runs), and the
# linear-time shapes of bench/loggen (issue 15 §1): 10,000 repeated
# identical PyTorch OOMs, 1,000 distinct ones, 1,024 ranks with tracebacks,
# 1,000 escape-heavy JSON lines, a log where every line holds an anchor word
# (same size as the largest training log, against grep) and a real training
# run (tqdm redraws, rank-prefixed logger lines with memory figures,
# warnings, handled tracebacks; against grep). SHAPES="" skips them.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES-"128MiB 1GiB"}
SHAPES=${SHAPES-"repeated distinct ranks json-escapes anchored training"}
ROUNDS=${ROUNDS:-7}
OUTDIR=${OUTDIR:-bench/out}
mkdir -p "$OUTDIR"
# The binary a release ships (scripts/release): static, no cgo. A plain
# `go build` with a C compiler present links libc for os/user (through
# kong) and starts about 1 ms slower, which the 5 KB paste would count.
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$OUTDIR/oomdoc" ./cmd/oomdoc
go build -o "$OUTDIR/genlog" ./bench/genlog

# stamp VAR sets VAR to the wall clock in seconds without starting a
# process: bash 5's EPOCHREALTIME, so that the 5 KB paste's milliseconds
# are oomdoc's own and not those of a forked `date` (about 2 ms here).
# Older shells fall back to date, which then counts in every figure.
stamp() {
  if [ -n "${EPOCHREALTIME:-}" ]; then printf -v "$1" '%s' "${EPOCHREALTIME/,/.}"
  else printf -v "$1" '%s' "$(date +%s.%N)"; fi
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

for size in $SIZES; do
  log="$OUTDIR/train-$size.log"
  [ -s "$log" ] || "$OUTDIR/genlog" -size "$size" -ranks 8 >"$log"
  cat "$log" >/dev/null   # page cache
  "$OUTDIR/oomdoc" --format json "$log" >/dev/null
  LC_ALL=C grep -c 'out of memory' "$log" >/dev/null
  : >"$OUTDIR/oomdoc.times"; : >"$OUTDIR/grep.times"
  for _ in $(seq "$ROUNDS"); do
    stamp t0; "$OUTDIR/oomdoc" --format json "$log" >/dev/null; stamp t1
    echo "$t1 - $t0" | bc -l >>"$OUTDIR/oomdoc.times"
    stamp t0; LC_ALL=C grep -c 'out of memory' "$log" >/dev/null; stamp t1
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
  stamp t0; "$OUTDIR/oomdoc" --color=never "$paste" >/dev/null; stamp t1
  echo "$t1 - $t0" | bc -l >>"$OUTDIR/paste.times"
done
: >"$OUTDIR/version.times"   # the start-up floor, timed the same way
for _ in $(seq 50); do
  stamp t0; "$OUTDIR/oomdoc" --version >/dev/null; stamp t1
  echo "$t1 - $t0" | bc -l >>"$OUTDIR/version.times"
done
printf 'paste   %6d B    oomdoc %.1f ms median, process start to exit (50 runs); --version %.1f ms\n' "$(stat -c %s "$paste")" "$(echo "$(median <"$OUTDIR/paste.times") * 1000" | bc -l)" "$(echo "$(median <"$OUTDIR/version.times") * 1000" | bc -l)"

# The linear-time shapes: oomdoc's median wall and CPU time; the anchored
# and training shapes are also timed against grep.
for shape in $SHAPES; do
  log="$OUTDIR/shape-$shape.log"
  case $shape in
    anchored) n=10500000 ;;       # ~1 GiB: every line anchored
    training) n=1600000 ;;        # ~512 MiB of training run
    *) n=0 ;;
  esac
  [ -s "$log" ] || "$OUTDIR/genlog" -shape "$shape" -n "$n" >"$log"
  cat "$log" >/dev/null
  : >"$OUTDIR/oomdoc.times"; : >"$OUTDIR/grep.times"
  for _ in $(seq "$ROUNDS"); do
    stamp t0; "$OUTDIR/oomdoc" --format json "$log" >/dev/null; stamp t1
    echo "$t1 - $t0" | bc -l >>"$OUTDIR/oomdoc.times"
    stamp t0; LC_ALL=C grep -c 'out of memory' "$log" >/dev/null || true; stamp t1
    echo "$t1 - $t0" | bc -l >>"$OUTDIR/grep.times"
  done
  o=$(median <"$OUTDIR/oomdoc.times"); g=$(median <"$OUTDIR/grep.times")
  cpu=$( { /usr/bin/time -f '%U %S %M' "$OUTDIR/oomdoc" --format json "$log" >/dev/null; } 2>&1 | tail -1)
  printf 'shape %-13s %7.1f MiB  oomdoc %.3f s (cpu %.2f s)  grep %.3f s  ratio %.2f  peak RSS %d KiB\n' \
    "$shape" "$(echo "$(stat -c %s "$log") / 1048576" | bc -l)" "$o" "$(echo "$cpu" | awk '{print $1 + $2}')" "$g" "$(echo "$o / $g" | bc -l)" "$(echo "$cpu" | awk '{print $3}')"
done
