#!/usr/bin/env bash
# A throwaway one-node Slurm cluster for tests and for trying out scripts/slurm/submit.sh:
#   scripts/slurm/local-cluster.sh start DIR [CTLD_PORT SLURMD_PORT]
#       writes a MUNGE key and slurm.conf under DIR (state, spool, logs there too), starts munged,
#       slurmctld and slurmd (node "tmnode" on 127.0.0.1 with this machine's CPUs; default ports:
#       two free ones), waits up to 60 s until `sinfo` shows the node idle, and prints the line to
#       use it: SLURM_CONF=DIR/slurm.conf
#   scripts/slurm/local-cluster.sh stop DIR
#       stops the daemons it started (by their PIDs in DIR/pids), waits until they are gone
# Uses Debian's slurmctld, slurmd, slurm-client and munge (scripts/install-deps.sh installs them);
# no system service is involved, nothing outside DIR is written. No cgroups: processes are tracked
# with proctrack/linuxproc, and no accounting daemon runs (the driver falls back to scontrol).
# As root the daemons run as root; as another user slurmd can only run that user's jobs.
set -euo pipefail
usage() { echo "usage: $0 start DIR [CTLD_PORT SLURMD_PORT] | stop DIR" >&2; exit 2; }
(($# >= 2)) || usage
cmd=$1 dir=$2

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }

stop() {
  [ -f "$dir/pids" ] || { echo "no Slurm cluster started in $dir" >&2; return 0; }
  local pids; pids=$(cat "$dir/pids")
  # slurmd first (it ends its jobs' steps), then the controller, then munged.
  for name in slurmd slurmctld munged; do
    local pid; pid=$(awk -v n="$name" '$1 == n {print $2}' <<<"$pids")
    alive "$pid" || continue
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do alive "$pid" || break; sleep 0.1; done
    alive "$pid" && { echo "$name ($pid) did not stop in 10 s: killing it" >&2; kill -9 "$pid" 2>/dev/null || true; }
  done
  rm -f "$dir/pids"
}

case $cmd in
  start)
    (($# == 2 || $# == 4)) || usage
    for tool in munged slurmctld slurmd sinfo sbatch; do
      command -v "$tool" >/dev/null || PATH="$PATH:/usr/sbin:/sbin"
      command -v "$tool" >/dev/null || {
        echo "$tool not found: install Slurm and MUNGE (scripts/install-deps.sh slurmctld slurmd slurm-client munge)" >&2; exit 1; }
    done
    ctld_port=${3:-$(free_port)} slurmd_port=${4:-$(free_port)}
    for p in "$ctld_port" "$slurmd_port"; do
      [[ $p =~ ^[0-9]+$ ]] && ((p > 0 && p < 65536)) || { echo "bad port: $p" >&2; exit 2; }
    done
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    [ -f "$dir/pids" ] && { echo "a cluster already runs in $dir (stop it first)" >&2; exit 1; }
    # Unix sockets are limited to 107 bytes of path.
    ((${#dir} < 80)) || { echo "DIR is too long for MUNGE's socket path (under 80 characters please): $dir" >&2; exit 2; }
    mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
    chmod 755 "$dir/munge"   # clients of every user reach the socket; the key stays 0400
    user=$(id -un)
    [ -f "$dir/munge/munge.key" ] || { head -c 1024 /dev/urandom >"$dir/munge/munge.key"; chmod 400 "$dir/munge/munge.key"; }
    cpus=$(nproc)
    cat >"$dir/slurm.conf" <<CONF
# A one-node cluster made by scripts/slurm/local-cluster.sh
ClusterName=trailmap
SlurmctldHost=$(hostname -s)(127.0.0.1)
MailProg=/bin/true
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
MinJobAge=86400
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
NodeName=tmnode NodeAddr=127.0.0.1 NodeHostname=$(hostname) CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=tmnode Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF=$dir/slurm.conf
    : >"$dir/pids"
    trap 'status=$?; ((status == 0)) || stop' EXIT
    # Each daemon in the foreground of its own session, its PID recorded; none keeps the caller's
    # descriptors (a caller reading our output gets its end).
    setsid munged --foreground --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
      --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munge.seed" \
      </dev/null >>"$dir/log/munged.out" 2>&1 &
    echo "munged $!" >>"$dir/pids"
    for _ in $(seq 1 100); do [ -S "$dir/munge/munge.socket" ] && break; sleep 0.1; done
    [ -S "$dir/munge/munge.socket" ] || { echo "munged did not start:" >&2; tail -5 "$dir/log/munged.out" "$dir/log/munged.log" >&2 || true; exit 1; }
    setsid slurmctld -D -i -f "$dir/slurm.conf" </dev/null >>"$dir/log/slurmctld.out" 2>&1 &
    echo "slurmctld $!" >>"$dir/pids"
    setsid slurmd -D -N tmnode -f "$dir/slurm.conf" </dev/null >>"$dir/log/slurmd.out" 2>&1 &
    echo "slurmd $!" >>"$dir/pids"
    state=""
    for _ in $(seq 1 120); do
      state=$(sinfo -h -n tmnode -o %t 2>/dev/null || true)
      [ "$state" = idle ] && break
      for name in munged slurmctld slurmd; do
        pid=$(awk -v n="$name" '$1 == n {print $2}' "$dir/pids")
        alive "$pid" || { echo "$name exited:" >&2; tail -15 "$dir/log/$name.out" "$dir/log/$name.log" >&2 2>/dev/null || true; exit 1; }
      done
      sleep 0.5
    done
    [ "$state" = idle ] || { echo "the node is not idle after 60 s (state: ${state:-none}); logs in $dir/log" >&2; exit 1; }
    echo "SLURM_CONF=$dir/slurm.conf"
    ;;
  stop)
    (($# == 2)) || usage
    stop
    ;;
  *) usage ;;
esac
