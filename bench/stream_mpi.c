/* Memory bandwidth of P MPI ranks streaming at once (STREAM's copy and triad,
 * written for um's scaling tables): the global arrays are split over the
 * ranks, as a strong-scaling run splits a mesh, and every rank streams its
 * part between barriers. Prints the aggregate and per-rank GB/s (bytes as
 * STREAM counts them: read + written, no write-allocate traffic), best of
 * the repetitions, so a loop's GB/s at P ranks can be read against what the
 * memory gives P ranks.
 *
 *   mpirun -np P um_stream_mpi [MIB_PER_ARRAY (1024)] [REPS (10)]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double mib = argc > 1 ? atof(argv[1]) : 1024.0;
  const int reps = argc > 2 ? atoi(argv[2]) : 10;
  if (!(mib > 0) || reps < 1) {
    if (!rank) fprintf(stderr, "usage: um_stream_mpi [MIB_PER_ARRAY > 0] [REPS >= 1]\n");
    MPI_Finalize();
    return 2;
  }
  const size_t n = (size_t)(mib * 1048576.0 / sizeof(double) / size);
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
  int ok = a && b && c, all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) {
    if (!rank) fprintf(stderr, "um_stream_mpi: cannot allocate 3 x %.0f MiB over %d ranks\n", mib, size);
    MPI_Finalize();
    return 1;
  }
  for (size_t i = 0; i < n; i++) a[i] = 1.0, b[i] = 2.0, c[i] = 0.5; /* first touch by the rank that streams it */
  double best[2] = {1e30, 1e30};
  for (int r = 0; r < reps; r++) {
    for (int k = 0; k < 2; k++) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      if (k == 0)
        for (size_t i = 0; i < n; i++) c[i] = a[i];
      else
        for (size_t i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
      double t = MPI_Wtime() - t0, tmax;
      MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (tmax < best[k]) best[k] = tmax;
    }
  }
  const double bytes[2] = {2.0 * sizeof(double) * n * size, 3.0 * sizeof(double) * n * size};
  if (!rank)
    printf("ranks %d  arrays %.0f MiB each  copy %.1f GB/s (%.2f per rank)  triad %.1f GB/s (%.2f per rank)  check %g\n",
           size, mib, bytes[0] / best[0] * 1e-9, bytes[0] / best[0] * 1e-9 / size, bytes[1] / best[1] * 1e-9,
           bytes[1] / best[1] * 1e-9 / size, a[n / 2] + c[n / 3]);
  free(a), free(b), free(c);
  MPI_Finalize();
  return 0;
}
