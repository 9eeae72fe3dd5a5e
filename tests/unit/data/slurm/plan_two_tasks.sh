#!/bin/sh
# Caldera job team-a/sim (uid 6f1c2d3e-0000-4000-8000-00000000abcd, send 2): every replica one rank of one srun step.
D='/shared/caldera/6f1c2d3e-0000-4000-8000-00000000abcd'/$SLURM_JOB_ID
mkdir -p "$D" || exit 1
caldera_hosts() {
    scontrol show hostnames "$1" | awk -v tpn="$2" 'BEGIN { n = split(tpn, a, ","); k = 0
        for (i = 1; i <= n; i++) { c = a[i]; r = 1
            if (match(c, /\(x[0-9]+\)/)) { r = substr(c, RSTART + 2, RLENGTH - 3); c = substr(c, 1, RSTART - 1) }
            for (j = 0; j < r; j++) cnt[k++] = c } }
        { for (j = 0; j < cnt[NR - 1]; j++) printf "%s%s", (o++ ? "," : ""), $0 }'
}
H=$(caldera_hosts "$SLURM_JOB_NODELIST_HET_GROUP_0" "$SLURM_TASKS_PER_NODE_HET_GROUP_0"),$(caldera_hosts "$SLURM_JOB_NODELIST_HET_GROUP_1" "$SLURM_TASKS_PER_NODE_HET_GROUP_1")
export VC_PS_HOSTS="$(echo "$H" | cut -d, -f1-1)"
export VC_PS_NUM=1
export VC_SIM_WORKER_HOSTS="$(echo "$H" | cut -d, -f2-3)"
export VC_SIM_WORKER_NUM=2
cat >"$D/rank.sh" <<'CALDERA_RANK'
D=$1; r=$SLURM_PROCID; W=$2
if [ "$r" -lt 1 ]; then
    t='ps'; i=$((r - 0))
    W='/srv/sim'
    set -- env 'ROLE=it'\''s ps' "VK_TASK_INDEX=$i" "VC_TASK_INDEX=$i" 'sh' '-c' 'echo "ps $VC_TASK_INDEX"'
elif [ "$r" -lt 3 ]; then
    t='sim-worker'; i=$((r - 1))
    set -- env "VK_TASK_INDEX=$i" "VC_TASK_INDEX=$i" 'python3' 'sim.py' '--steps=10'
else
    exit 1
fi
f="$D/rank-$t-$i"
echo "start $(date +%s%3N) $SLURMD_NODENAME" >"$f"
cd "$W" || { echo "end $(date +%s%3N) 128" >>"$f"; exit 128; }
"$@" >>"$D/$t-$i.out" 2>&1 </dev/null &
p=$!
trap 'kill -TERM $p 2>/dev/null' TERM INT HUP
wait $p; rc=$?
while kill -0 $p 2>/dev/null; do wait $p; rc=$?; done
echo "end $(date +%s%3N) $rc" >>"$f"
exit $rc
CALDERA_RANK
srun --kill-on-bad-exit=0 --het-group=0 -n 1 sh "$D/rank.sh" "$D" "$PWD" : --het-group=1 -n 2 sh "$D/rank.sh" "$D" "$PWD"
