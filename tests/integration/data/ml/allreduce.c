/* One rank of test_ml_jobs.c's MPIJob: every rank adds rank + 1 to an MPI_Allreduce and prints the sum
 * with the sshd connection it was started through (its worker's port ends SSH_CONNECTION). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long mine = rank + 1, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    const char *via = getenv("SSH_CONNECTION");
    printf("rank %d of %d: sum %ld, ssh %s\n", rank, size, sum, via ? via : "none");
    MPI_Finalize();
    return 0;
}
