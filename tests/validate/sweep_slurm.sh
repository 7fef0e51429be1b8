#!/bin/sh
# The sweep's Slurm backend on a real single-node cluster: munge, slurmctld
# and slurmd (Debian's packages; `make validate` installs them) configured
# in a temporary folder, on ports of their own, started here and stopped at
# the end. A 12-point sweep (L1D size x branch predictor over the bundled
# hello-world trace) runs once locally and once as a Slurm job array, and
# the two tables must be equal byte for byte, and so must each point's
# windows (the spec asks for them) and their table; each array task must
# have left its Slurm output file, so the points did run under Slurm.
set -u
BIN=${CGM_BIN:-bin}
ROOT=${CGM_ROOT:-.}
BIN=$(cd "$BIN" && pwd)
ROOT=$(cd "$ROOT" && pwd)
say() { echo "sweep_slurm: $*"; }
for p in munged slurmctld slurmd sbatch sinfo; do
    command -v "$p" >/dev/null || { say "$p missing (apt-get install slurmctld slurmd slurm-client munge)"; exit 1; }
done
[ "$(id -u)" = 0 ] || { say "needs root (slurmd starts jobs as their user)"; exit 1; }

tmp=$(mktemp -d /tmp/cgm_slurm_XXXXXX)
chmod 755 "$tmp"
# The daemons run in the foreground as this shell's children, so stopping
# them is a kill and a wait by process id (no daemonised strays).
pids=""
stop() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    for p in $pids; do wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap stop EXIT
trap 'exit 1' INT TERM

# munge: a key and a socket of our own.
mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool"
chmod 700 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$tmp/munge/munge.key"
munged --foreground --force --socket="$tmp/munge/socket" --key-file="$tmp/munge/munge.key" \
    --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" --seed-file="$tmp/munge/seed" >"$tmp/munged.out" 2>&1 &
pids="$!"
for _ in $(seq 20); do [ -S "$tmp/munge/socket" ] && break; sleep 0.5; done
[ -S "$tmp/munge/socket" ] || { say "munged did not start"; cat "$tmp/munged.out"; exit 1; }

# Slurm: one node (this machine, on the loopback address), one partition.
host=$(hostname -s)
port=$((20000 + ($$ % 5000) * 2))
cpus=$(nproc)
cat > "$tmp/slurm.conf" <<EOF
ClusterName=cgmvalidate
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=2000 State=UNKNOWN
PartitionName=cgm Nodes=$host Default=YES MaxTime=60 State=UP
EOF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -D -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 &
pids="$! $pids"
sleep 1
slurmd -D -f "$SLURM_CONF" -N "$host" >"$tmp/slurmd.out" 2>&1 &
pids="$! $pids"
state=""
for _ in $(seq 60); do
    state=$(sinfo -h -o %T 2>/dev/null)
    [ "$state" = idle ] && break
    sleep 1
done
[ "$state" = idle ] || { say "the node did not become idle ($state)"; tail -20 "$tmp/slurmctld.log" "$tmp/slurmd.log"; exit 1; }
say "cluster up: $(sinfo -h -o '%P %D %c %T') (sbatch $(sbatch --version))"

cat > "$tmp/spec.ini" <<EOF
[sweep]
trace = $ROOT/traces/golden/v1-x86-hello.cgt
metric = cycles
metric = caches[core0.l1d].misses
metric = cores[0].conditional_mispredictions
metric = ipc
windows = 20000
window_metric = cycles
window_metric = instructions
[base]
cpu.cores = 1
cpu.history_bits = 6
[axes]
cache.l1d.size = 1KiB..8KiB *2
cpu.predictor = bimodal, gshare, gselect
EOF

"$BIN/sweep" "$tmp/spec.ini" -o "$tmp/local" -j 2 || { say "FAIL: the local sweep failed"; exit 1; }
t0=$(date +%s)
"$BIN/sweep" "$tmp/spec.ini" -o "$tmp/slurm" --slurm --partition cgm --time 5 --mem 100 --wait ||
    { say "FAIL: the Slurm sweep failed"; tail -20 "$tmp/slurmctld.log"; exit 1; }
"$BIN/sweep" collect "$tmp/spec.ini" -o "$tmp/slurm" || { say "FAIL: collect reports missing points"; exit 1; }
say "job array of 12 tasks ran in $(( $(date +%s) - t0 )) s"
outs=$(ls "$tmp/slurm/slurm/" | grep -c '\.out$')
[ "$outs" = 12 ] || { say "FAIL: $outs Slurm task outputs, expected 12"; exit 1; }
if ! cmp "$tmp/local/table.csv" "$tmp/slurm/table.csv"; then
    say "FAIL: the tables differ"
    diff "$tmp/local/table.csv" "$tmp/slurm/table.csv"
    exit 1
fi
rows=$(($(wc -l < "$tmp/local/table.csv") - 1))
distinct=$(cut -d, -f3 "$tmp/local/table.csv" | sort -u | wc -l)
say "the local and Slurm tables are equal byte for byte ($rows points, $((distinct - 1)) distinct cycle counts)"
[ "$rows" = 12 ] || { say "FAIL: $rows rows"; exit 1; }
for d in local slurm; do
    "$BIN/sweep" windows "$tmp/spec.ini" -o "$tmp/$d" || { say "FAIL: $d: points without windows"; exit 1; }
done
if ! cmp "$tmp/local/windows.csv" "$tmp/slurm/windows.csv"; then
    say "FAIL: the windows tables differ"
    diff "$tmp/local/windows.csv" "$tmp/slurm/windows.csv" | head
    exit 1
fi
for f in "$tmp"/local/points/*.windows.jsonl; do
    cmp "$f" "$tmp/slurm/points/${f##*/}" || { say "FAIL: ${f##*/} differs"; exit 1; }
done
say "and so are their windows ($(($(wc -l < "$tmp/local/windows.csv") - 1)) rows)"
