/* One outcome for a step every rank takes (um/distributed.h: um_mpi_agree_step): the ranks' statuses gathered on
 * rank 0 and the largest sent back, by point-to-point messages of tags of their own, so that the step never
 * matches a collective that a rank which stopped earlier has entered (umrun's agreement after the app, with its
 * deadline): a rank that never reaches the step makes the others give up after timeout_s, not wait forever; and
 * the first failure of a step every rank has reached, its rank, code and message sent to all (um_mpi_first_failure),
 * so that every rank says the one reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "um/um.h"

#ifdef UM_HAVE_MPI
#include "dist_impl.h"

enum { TAG_UP = 32101, TAG_DOWN = 32102 }; /* no other message of the engine or umrun uses these */

/* Wait for n requests, giving up after timeout_s (> 0) from t0 (then cancelled): 1 done, 0 not in time. */
static int wait_until(int n, MPI_Request *rq, double t0, double timeout_s) {
  for (;;) {
    int done = 0;
    MPI_Testall(n, rq, &done, MPI_STATUSES_IGNORE);
    if (done) return 1;
    if (timeout_s > 0 && MPI_Wtime() - t0 > timeout_s) { /* none is left pending to match a later step's message */
      for (int i = 0; i < n; i++) {
        MPI_Cancel(&rq[i]);
        MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
      }
      return 0;
    }
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
}

int um_mpi_agree_step(int status, double timeout_s) {
  const int P = um_mpi_size();
  if (!mpi_up() || P < 2) return status;
  const double t0 = MPI_Wtime();
  int all = status;
  if (um_mpi_rank() != 0) {
    MPI_Request rq[2];
    if (MPI_Isend(&status, 1, MPI_INT, 0, TAG_UP, MPI_COMM_WORLD, &rq[0]) != MPI_SUCCESS ||
        MPI_Irecv(&all, 1, MPI_INT, 0, TAG_DOWN, MPI_COMM_WORLD, &rq[1]) != MPI_SUCCESS)
      return -1;
    return wait_until(2, rq, t0, timeout_s) ? all : -1;
  }
  int *st = malloc(sizeof(int) * (size_t)P);
  MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)P);
  int ok = st && rq;
  for (int p = 1; p < P && ok; p++)
    ok = MPI_Irecv(&st[p], 1, MPI_INT, p, TAG_UP, MPI_COMM_WORLD, &rq[p - 1]) == MPI_SUCCESS;
  ok = ok && wait_until(P - 1, rq, t0, timeout_s);
  for (int p = 1; p < P && ok; p++) all = st[p] > all ? st[p] : all;
  for (int p = 1; p < P && ok; p++)
    ok = MPI_Isend(&all, 1, MPI_INT, p, TAG_DOWN, MPI_COMM_WORLD, &rq[p - 1]) == MPI_SUCCESS;
  ok = ok && wait_until(P - 1, rq, t0, timeout_s);
  free(st);
  free(rq);
  return ok ? all : -1;
}

int um_mpi_first_failure(int rc, const char *mine, char *msg, size_t n, int *who) {
  const int P = um_mpi_size(), rank = um_mpi_rank();
  if (who) *who = rc ? rank : -1;
  if (!mpi_up() || P < 2) return rc;
  int first = P, me = rc ? rank : P;
  if (MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS) return rc ? rc : UM_ERR_BACKEND;
  if (first == P) return UM_SUCCESS;
  struct {
    int rc;
    char text[1024];
  } m;
  memset(&m, 0, sizeof m);
  if (rank == first) m.rc = rc, snprintf(m.text, sizeof m.text, "%s", mine ? mine : "");
  if (MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, first, MPI_COMM_WORLD) != MPI_SUCCESS) m.rc = UM_ERR_BACKEND;
  if (msg && n) snprintf(msg, n, "%s", m.text);
  if (who) *who = first;
  return m.rc ? m.rc : UM_ERR_BACKEND;
}

#else /* no MPI: one process */

int um_mpi_first_failure(int rc, const char *mine, char *msg, size_t n, int *who) {
  if (who) *who = rc ? 0 : -1;
  if (rc && msg && n) snprintf(msg, n, "%s", mine ? mine : "");
  return rc;
}

int um_mpi_agree_step(int status, double timeout_s) {
  (void)timeout_s;
  return status;
}

#endif
