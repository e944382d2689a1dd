#!/usr/bin/env bash
# Builds one region on a Slurm cluster: the shards as an array job, the merge as a job that runs
# once every shard succeeded (--dependency=afterok).
#
# usage: scripts/slurm/submit.sh --shards N --out OUT.mbtiles [--partition P] [--parts DIR]
#          [--cpus C] [--retries R] [--poll SECONDS] [--wait] -- BUILD_ARGS...
#   BUILD_ARGS  what `trailmap build` takes (sources or a manifest, name, zooms, format...), but
#               not --out or --shard. Paths must be the same on every node: a shared file system,
#               or sources staged per node at the same path (the merge matches them by content).
#   --parts     the shared folder of the parts and logs (default: .OUT.parts beside OUT)
#   --cpus      CPUs per shard (--cpus-per-task; the build's --threads unless BUILD_ARGS give them)
#   --wait      stay and watch: print progress (squeue, sacct or scontrol), resubmit the shards
#               that were killed (cancelled, node failure, time limit, out of memory, a signal) or
#               ran on a node lacking a source (then avoiding that node), at most R times each
#               (default 2); they resume their partial files. A shard that fails for good (trailmap
#               refused its input, e.g. a corrupt source) stops the build: nothing is merged, the
#               shard and the reason are named. Exit 0 only once OUT is merged and in place.
#   Without --wait: submits both jobs, prints their ids and exits (no resubmission).
# env: TRAILMAP  the trailmap binary on the nodes (default: trailmap on the PATH); SLURM_CONF etc.
#      as for sbatch. The jobs get this environment (sbatch's --export=ALL).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage() { echo "usage: $0 --shards N --out OUT.mbtiles [--partition P] [--parts DIR] [--cpus C] [--retries R] [--poll S] [--wait] -- BUILD_ARGS..." >&2; exit 2; }
shards="" out="" partition="" parts="" cpus=1 retries=2 poll=10 wait=0
while (($#)); do
  case $1 in
    --shards) shards=${2:-}; shift 2 || usage ;;
    --out) out=${2:-}; shift 2 || usage ;;
    --partition) partition=${2:-}; shift 2 || usage ;;
    --parts) parts=${2:-}; shift 2 || usage ;;
    --cpus) cpus=${2:-}; shift 2 || usage ;;
    --retries) retries=${2:-}; shift 2 || usage ;;
    --poll) poll=${2:-}; shift 2 || usage ;;
    --wait) wait=1; shift ;;
    --) shift; break ;;
    *) echo "unknown option: $1" >&2; usage ;;
  esac
done
[[ $shards =~ ^[1-9][0-9]*$ ]] && ((shards <= 10000)) || { echo "--shards must be 1-10000, not '$shards'" >&2; exit 2; }
[[ $out == *.mbtiles ]] || { echo "--out must end in .mbtiles" >&2; exit 2; }
[[ $cpus =~ ^[1-9][0-9]*$ ]] || { echo "--cpus must be a positive number, not '$cpus'" >&2; exit 2; }
[[ $retries =~ ^[0-9]+$ ]] || { echo "--retries must be a number, not '$retries'" >&2; exit 2; }
[[ $poll =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "--poll must be a number of seconds, not '$poll'" >&2; exit 2; }
(($#)) || { echo "give the build's arguments after --, e.g. -- --source /shared/sheets --name Colorado --minzoom 6 --maxzoom 15" >&2; exit 2; }
for a in "$@"; do
  case $a in --out|--out=*|--shard|--shard=*) echo "BUILD_ARGS must not give ${a%%=*}: the driver sets it per shard" >&2; exit 2 ;; esac
done
command -v sbatch >/dev/null || { echo "sbatch not found: run this on a Slurm submit host" >&2; exit 1; }
build_args=("$@")
outdir=$(cd "$(dirname "$out")" 2>/dev/null && pwd) || { echo "the folder of $out does not exist" >&2; exit 1; }
out=$outdir/$(basename "$out")
parts=${parts:-$outdir/.$(basename "$out" .mbtiles).parts}
mkdir -p "$parts/logs" "$parts/status"
parts=$(cd "$parts" && pwd)
rm -f "$parts"/status/*.done "$parts"/status/*.failed
export TRAILMAP_SLURM_DIR=$here
common=(--parsable --cpus-per-task="$cpus")
[ -n "$partition" ] && common+=(--partition="$partition")
say() { echo "[$(date -u +%H:%M:%S)] $*"; }

declare -A job attempts handled
excluded=""
merge_job=""
# submit_shards K...: one array job of those shards; sets job[K] and submitted (its id).
submit_shards() {
  local list; list=$(IFS=,; echo "$*")
  local extra=()
  [ -n "$excluded" ] && extra+=(--exclude="$excluded")
  local id
  id=$(sbatch "${common[@]}" "${extra[@]}" --job-name=trailmap-shards --array="$list" --open-mode=append \
        --output="$parts/logs/shard-%a.log" "$here/shards.sbatch" --shards "$shards" --parts "$parts" -- "${build_args[@]}") ||
    { say "sbatch refused the shards $list"; return 1; }
  id=${id%%;*}
  local k
  for k in "$@"; do job[$k]=$id; attempts[$k]=$((${attempts[$k]:-0} + 1)); unset "handled[$k]"; done
  submitted=$id
}
# submit_merge [DEPENDENCY]
submit_merge() {
  local dep=()
  [ -n "${1:-}" ] && dep=(--dependency="$1" --kill-on-invalid-dep=yes)
  merge_job=$(sbatch "${common[@]}" --job-name=trailmap-merge "${dep[@]}" \
        --output="$parts/logs/merge.log" --open-mode=append "$here/merge.sbatch" --shards "$shards" --parts "$parts" --out "$out") ||
    { say "sbatch refused the merge job"; return 1; }
  merge_job=${merge_job%%;*}
}

all=$(seq 1 "$shards")
submit_shards $all || exit 1
array=$submitted
submit_merge "afterok:$array" || { scancel "$array" 2>/dev/null || true; exit 1; }
say "submitted shards 1-$shards of $(basename "$out") as array job $array, the merge as job $merge_job (after every shard succeeded); parts and logs in $parts"
if ((!wait)); then
  echo "follow with: squeue -j $array,$merge_job; the merged bundle: $out (its log: $parts/logs/merge.log)"
  exit 0
fi

# States of jobs: lines "JOBID STATE EXIT NODE", JOBID as ARRAY_K for array tasks. sacct when
# accounting is on; scontrol (which knows finished jobs for MinJobAge) otherwise.
have_sacct=0
sacct -n -X -j "$array" >/dev/null 2>&1 && have_sacct=1
states() { # JOBID...
  local ids; ids=$(IFS=,; echo "$*")
  if ((have_sacct)); then
    sacct -n -X -P -j "$ids" -o JobID,State,ExitCode,NodeList 2>/dev/null | awk -F'|' '{split($2, s, " "); print $1, s[1], $3, ($4 == "" ? "-" : $4)}'
  fi
  local id
  for id in "$@"; do
    scontrol show job -o "$id" 2>/dev/null | awk '{
      aj = ""; at = ""; id = ""; st = ""; ex = ""; node = "-"
      for (i = 1; i <= NF; i++) {
        split($i, kv, "=")
        if (kv[1] == "JobId" && id == "") id = kv[2]
        else if (kv[1] == "ArrayJobId") aj = kv[2]
        else if (kv[1] == "ArrayTaskId") at = substr($i, 13)
        else if (kv[1] == "JobState") st = kv[2]
        else if (kv[1] == "ExitCode") ex = kv[2]
        else if (kv[1] == "BatchHost" && kv[2] != "") node = kv[2]
      }
      if (aj != "") print aj "_" at, st, ex, node; else print id, st, ex, node
    }'
  done
}
# expand "A_3" "A_[2-4]" "A_2-4%2" "A_1,3" into "A_K" lines
expand() {
  local jid=$1 rest=$2 state=$3 code=$4 node=$5
  rest=${rest#[}; rest=${rest%]}; rest=${rest%%%*}
  local part a b
  IFS=, read -ra ranges <<<"$rest"
  for part in "${ranges[@]}"; do
    a=${part%-*} b=${part#*-}
    for ((k = a; k <= b; k++)); do echo "${jid}_$k $state $code $node"; done
  done
}
table() { # JOBID... -> "ARRAY_K STATE EXIT NODE", one per task (sacct's lines win over scontrol's)
  states "$@" | while read -r id state code node; do
    if [[ $id == *_* ]]; then expand "${id%%_*}" "${id#*_}" "$state" "$code" "$node"; else echo "$id $state $code $node"; fi
  done | awk '!seen[$1]++'
}
transient="CANCELLED NODE_FAIL PREEMPTED TIMEOUT BOOT_FAIL DEADLINE OUT_OF_MEMORY REVOKED"
last_line=""
while :; do
  ids=$(printf '%s\n' "${job[@]}" | sort -u)
  declare -A st=() ex=() nd=()
  while read -r id state code node; do st[$id]=$state ex[$id]=$code nd[$id]=$node; done < <(table $ids $merge_job)
  declare -A count=()
  retry=() fatal=()
  for k in $all; do
    key=${job[$k]}_$k
    s=${st[$key]:-UNKNOWN}
    if [ "$s" = UNKNOWN ]; then  # forgotten by Slurm: the shard's own record decides
      if [ -f "$parts/status/shard-$k.done" ]; then s=COMPLETED
      elif [ -f "$parts/status/shard-$k.failed" ]; then s=FAILED
      else s=LOST; fi
    fi
    count[$s]=$((${count[$s]:-0} + 1))
    case $s in PENDING|RUNNING|CONFIGURING|COMPLETING|REQUEUED|RESIZING|SUSPENDED) continue ;; esac
    [ -n "${handled[$k]:-}" ] && continue
    if [ "$s" = COMPLETED ] && [ -f "$parts/part-$k.mbtiles" ]; then
      handled[$k]=1
      resumed=$(grep -hE '^(resumed a partial build|started over: )' "$parts/logs/shard-$k.log" 2>/dev/null | tail -1 || true)
      say "shard $k done (job ${job[$k]}_$k on ${nd[$key]:-?}, attempt ${attempts[$k]})${resumed:+: $resumed}"
      continue
    fi
    code=${ex[$key]:-?}
    why=$(cat "$parts/status/shard-$k.failed" 2>/dev/null || true)
    [ "$s" = COMPLETED ] && { s=LOST; why="finished but $parts/part-$k.mbtiles is not there"; }
    handled[$k]=1
    exit_status=${code%%:*} signal=${code#*:}
    if [[ " $transient LOST " == *" $s "* ]] || { [ "$s" = FAILED ] && { ((exit_status == 66 || exit_status > 128)) 2>/dev/null || [ "${signal:-0}" != 0 ]; }; }; then
      if ((exit_status == 66)) 2>/dev/null && [ "${nd[$key]:-"-"}" != - ]; then
        excluded=${excluded:+$excluded,}${nd[$key]}
      fi
      if ((attempts[$k] > retries)); then
        fatal+=("shard $k: $s on ${nd[$key]:-?} (exit $code)${why:+: $why}; given up after ${attempts[$k]} attempts")
      else
        say "shard $k (job ${job[$k]}_$k) $s on ${nd[$key]:-?} (exit $code)${why:+: $why}: will resubmit it"
        retry+=("$k")
      fi
    else
      fatal+=("shard $k failed for good on ${nd[$key]:-?} (job ${job[$k]}_$k, $s, exit $code): ${why:-see $parts/logs/shard-$k.log}")
    fi
  done
  ms=${st[$merge_job]:-UNKNOWN}
  line="shards: ${count[COMPLETED]:-0} done, $((${count[FAILED]:-0} + ${count[CANCELLED]:-0})) failed or cancelled, ${count[RUNNING]:-0} running, ${count[PENDING]:-0} pending of $shards; merge job $merge_job: $ms"
  [ "$line" != "$last_line" ] && say "$line" && last_line=$line
  if ((${#fatal[@]})); then
    live=()
    for k in $all; do
      case ${st[${job[$k]}_$k]:-} in PENDING|RUNNING|CONFIGURING|SUSPENDED) live+=("${job[$k]}_$k") ;; esac
    done
    scancel "$merge_job" "${live[@]}" 2>/dev/null || true
    say "the build failed; nothing was merged:"
    printf '  %s\n' "${fatal[@]}"
    ((${#live[@]})) && echo "  cancelled the shards still queued or running (${live[*]}); their partial files stay and resume on the next run"
    exit 1
  fi
  if ((${#retry[@]})); then
    scancel "$merge_job" 2>/dev/null || true
    submit_shards "${retry[@]}" || { say "the build failed: the shards ${retry[*]} could not be resubmitted${excluded:+ (avoiding $excluded)}"; exit 1; }
    new=$submitted deps="afterok:$submitted"
    for k in $all; do
      case " ${retry[*]} " in *" $k "*) continue ;; esac
      [ -z "${handled[$k]:-}" ] && deps+=":${job[$k]}_$k"
    done
    old_merge=$merge_job
    submit_merge "$deps" || exit 1
    say "resubmitted shard(s) ${retry[*]} as array job $new (they resume their partial files); merge job $old_merge cancelled, the merge is now job $merge_job ($deps)"
    last_line=""
    continue
  fi
  case $ms in
    COMPLETED)
      if [ -f "$parts/status/merge.done" ] && [ -f "$out" ]; then
        say "merged: $(grep -h 'parts merged' "$parts/logs/merge.log" | tail -1 || echo "$out")"
        exit 0
      fi
      say "the merge job completed but $out is not there; see $parts/logs/merge.log"; exit 1 ;;
    FAILED|CANCELLED|NODE_FAIL|TIMEOUT|OUT_OF_MEMORY|PREEMPTED|BOOT_FAIL|DEADLINE)
      # (a merge cancelled because a shard failed is replaced above, with the resubmitted shards)
      if [ "$ms" = FAILED ]; then
        say "the merge failed; the shards' parts stay in $parts:"
        sed 's/^/  /' "$parts/status/merge.failed" 2>/dev/null || echo "  see $parts/logs/merge.log"
        exit 1
      fi
      if ((${count[COMPLETED]:-0} == shards)); then
        old_merge=$merge_job
        submit_merge "" || exit 1
        say "merge job $old_merge ended $ms: resubmitted as job $merge_job"
      fi ;;
  esac
  sleep "$poll"
done
