# An MPIJob launcher: compiles allreduce.c, waits for the workers' sshd (the MPI operator's launchers
# retry the same way), then runs one rank per worker through mpirun over ssh on the mpi plugin's
# hostfile ($OMPI_MCA_orte_default_hostfile).
set -eu
cd "$HOME"
mpicc -O1 -o allreduce "$(dirname "$0")/allreduce.c"
echo "hostfile:"
cat "$OMPI_MCA_orte_default_hostfile"
for host in $(echo "$MPI_HOST" | tr , ' '); do
    tries=0
    until ssh -o BatchMode=yes -o ConnectTimeout=2 "$host" true 2>/dev/null; do
        tries=$((tries + 1))
        [ "$tries" -lt 100 ] || { echo "no sshd at $host" >&2; exit 1; }
        sleep 0.2
    done
done
root=""
[ "$(id -u)" = 0 ] && root="--allow-run-as-root"
exec mpirun $root -np 2 "$HOME/allreduce"
