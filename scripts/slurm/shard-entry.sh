#!/usr/bin/env bash
# The one entry point of a sharded build's jobs, shared by Slurm (shards.sbatch, merge.sbatch) and
# Kubernetes (deploy/kubernetes/): every node runs the same commands and leaves the same files.
#
#   shard-entry.sh shard --shards N --parts DIR [--index K] -- BUILD_ARGS...
#       runs `trailmap build BUILD_ARGS... --shard K/N --out DIR/part-K.mbtiles`. K is --index, or
#       SLURM_ARRAY_TASK_ID (an array 1-N), or JOB_COMPLETION_INDEX + 1 (a Kubernetes indexed Job,
#       0-based). Run again after a kill, the same command resumes the shard's partial file.
#       With SLURM_CPUS_PER_TASK set and no --threads in BUILD_ARGS, builds with that many threads.
#   shard-entry.sh merge --shards N --parts DIR --out OUT.mbtiles
#       checks that DIR holds every finished part 1..N (never merges a partial set), then runs
#       `trailmap bundle merge` into OUT.
#
# Leaves DIR/status/shard-K.done or DIR/status/shard-K.failed (one line: why, with the host),
# DIR/status/merge.done or merge.failed, for the driver (scripts/slurm/submit.sh) to report.
# Exit status: 0 done; 66 a source is missing on this node (another node may have it); 65 the
# merge found a part missing; otherwise trailmap's own (a signal: 128 + its number).
# env: TRAILMAP  the trailmap binary (default: trailmap on the PATH)
set -euo pipefail
usage() { echo "usage: $0 shard --shards N --parts DIR [--index K] -- BUILD_ARGS... | merge --shards N --parts DIR --out OUT.mbtiles" >&2; exit 2; }
(($#)) || usage
mode=$1; shift
shards="" parts="" index="" out=""
while (($#)); do
  case $1 in
    --shards) shards=${2:-}; shift 2 || usage ;;
    --parts) parts=${2:-}; shift 2 || usage ;;
    --index) index=${2:-}; shift 2 || usage ;;
    --out) out=${2:-}; shift 2 || usage ;;
    --) shift; break ;;
    *) echo "unknown option: $1" >&2; usage ;;
  esac
done
[[ $shards =~ ^[1-9][0-9]*$ ]] || { echo "--shards must be a positive number, not '${shards}'" >&2; exit 2; }
[ -n "$parts" ] || { echo "give --parts DIR (the shared folder of the parts)" >&2; exit 2; }
TRAILMAP=${TRAILMAP:-trailmap}
host=$(hostname)
mkdir -p "$parts/status"

case $mode in
  shard)
    if [ -z "$index" ]; then
      if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then index=$SLURM_ARRAY_TASK_ID
      elif [ -n "${JOB_COMPLETION_INDEX:-}" ]; then index=$((JOB_COMPLETION_INDEX + 1))
      else echo "no shard index: give --index K, or run as a Slurm array task or a Kubernetes indexed Job" >&2; exit 2; fi
    fi
    [[ $index =~ ^[1-9][0-9]*$ ]] && ((index <= shards)) || { echo "shard index $index is not within 1-$shards" >&2; exit 2; }
    (($#)) || { echo "give the build's arguments after --" >&2; exit 2; }
    status=$parts/status/shard-$index
    rm -f "$status.done" "$status.failed"
    fail() { echo "$1" >"$status.failed"; echo "shard $index/$shards on $host: $1" >&2; exit "$2"; }
    # A source this node lacks: said before the build starts (plain paths; globs, subdatasets and
    # PATH@Z0-Z1 levels are checked by trailmap itself).
    args=("$@") threads=1
    for ((i = 0; i < ${#args[@]}; i++)); do
      case ${args[i]} in
        --threads|--threads=*) threads=0 ;;
        --out|--out=*|--shard|--shard=*) fail "BUILD_ARGS must not give ${args[i]%%=*}: the entry script sets it" 2 ;;
        --source|--manifest|--source-list)
          p=${args[i + 1]:-}
          [ "${args[i]}" = --source ] && p=${p%@[0-9]*-[0-9]*}
          case $p in *[\*\?\[]*|*:*) continue ;; esac
          [ -e "$p" ] || fail "source $p is missing on this node" 66 ;;
      esac
    done
    ((threads)) && [ -n "${SLURM_CPUS_PER_TASK:-}" ] && args+=(--threads "$SLURM_CPUS_PER_TASK")
    part=$parts/part-$index.mbtiles
    echo "shard $index/$shards on $host: $TRAILMAP build ${args[*]} --shard $index/$shards --out $part"
    errors=$parts/status/shard-$index.stderr
    set +e
    "$TRAILMAP" build "${args[@]}" --shard "$index/$shards" --out "$part" 2> >(tee "$errors" >&2)
    code=$?
    set -e
    wait  # the tee
    if ((code == 0)) && [ -f "$part" ]; then
      echo "$host" >"$status.done"
      exit 0
    fi
    reason=$(grep -v '^tiles [0-9]' "$errors" | grep . | tail -1 || true)
    ((code > 128)) && reason="killed by signal $((code - 128))${reason:+ ($reason)}"
    ((code == 0)) && { reason="trailmap exited 0 but $part is not there"; code=1; }
    fail "exit $code: ${reason:-no message}" "$code"
    ;;
  merge)
    [[ $out == *.mbtiles ]] || { echo "--out must end in .mbtiles" >&2; exit 2; }
    rm -f "$parts/status/merge.done" "$parts/status/merge.failed"
    list=() missing=()
    for ((k = 1; k <= shards; k++)); do
      p=$parts/part-$k.mbtiles
      if [ -f "$p" ]; then list+=("$p")
      elif [ -f "$parts/.part-$k.mbtiles.building" ]; then missing+=("shard $k: $p is missing (only its partial file is there: the shard did not finish)")
      else missing+=("shard $k: $p is missing"); fi
    done
    if ((${#missing[@]})); then
      printf '%s\n' "${missing[@]}" >"$parts/status/merge.failed"
      { echo "merge refused on $host, ${#missing[@]} of $shards parts missing:"; printf '  %s\n' "${missing[@]}"; } >&2
      exit 65
    fi
    errors=$parts/status/merge.stderr
    set +e
    "$TRAILMAP" bundle merge "${list[@]}" --out "$out" 2> >(tee "$errors" >&2)
    code=$?
    set -e
    wait
    if ((code == 0)) && [ -f "$out" ]; then echo "$host" >"$parts/status/merge.done"; exit 0; fi
    echo "exit $code on $host: $(grep . "$errors" | tail -1 || true)" >"$parts/status/merge.failed"
    exit $((code ? code : 1))
    ;;
  *) usage ;;
esac
