# An MPIJob worker: sshd in the foreground, logging to stderr (the pod's log), on the mpi plugin's
# MPI_SSH_PORT. It needs host keys and a config of its own (the machine's /etc/ssh is not the job's):
# both are made in the worker's own directory. The job's key pair is in ~/.ssh (the ssh plugin's).
set -eu
dir="$HOME/sshd-worker-$VC_TASK_INDEX"
mkdir -p "$dir"
[ -f "$dir/host_ed25519" ] || ssh-keygen -q -t ed25519 -N "" -f "$dir/host_ed25519"
# As root: privilege separation's directory. As the task's own user (under --auth): sshd logs in only
# that user, and only through PAM when its password is locked, as service accounts' are.
pam=no
if [ "$(id -u)" = 0 ]; then mkdir -p /run/sshd; else pam=yes; fi
cat >"$dir/sshd_config" <<CONF
Port $MPI_SSH_PORT
ListenAddress 127.0.0.1
HostKey $dir/host_ed25519
PidFile none
UsePAM $pam
PrintMotd no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
AuthorizedKeysFile .ssh/authorized_keys
StrictModes no
CONF
exec /usr/sbin/sshd -De -f "$dir/sshd_config"
