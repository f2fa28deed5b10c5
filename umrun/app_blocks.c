/* Field files and other outputs written by blocks under mpirun (um/app.h: um_app_write_blocks): one file, as one
 * process writes it, with no rank holding more than its own block. Rank 0 creates the temporary
 * (util/safe_file.h) and writes the header and its block; the other ranks append theirs in rank order, each in its
 * turn (um_in_turn: a token passed from rank to rank); rank 0 renames the temporary into place. Every rank gets
 * one outcome. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "um/app.h"
#include "um/safe_file.h"

typedef struct {
  um_app_run *run;
  const char *path, *head, *what;
  const void *mine;
  size_t n;
  int root; /* the rank that creates and renames the file */
  um_safe_file sf; /* the root's */
  int opened;
  int tmp[1024]; /* the temporary's name, sent from the root as ints (um_mpi_bcast_int) */
} turn;

static int root_turn(turn *t) {
  char why[1200];
  if (um_safe_open(&t->sf, t->path, why, sizeof why)) return um_app_fail(t->run, UM_ERR_IO, "%s: %s", t->what, why);
  t->opened = 1;
  const size_t hn = t->head ? strlen(t->head) : 0;
  if ((hn && fwrite(t->head, 1, hn, t->sf.f) != hn) || (t->n && fwrite(t->mine, 1, t->n, t->sf.f) != t->n) ||
      fflush(t->sf.f) != 0)
    return um_app_fail(t->run, UM_ERR_IO, "%s: writing '%s' failed: %s (%s)", t->what, t->path, strerror(errno),
                       um_safe_why(errno));
  memset(t->tmp, 0, sizeof t->tmp);
  /* a device or FIFO is written in place (no temporary): the others append to it */
  const char *name = t->sf.tmp ? t->sf.tmp : t->path;
  const size_t len = strlen(name);
  if (len >= sizeof t->tmp) return um_app_fail(t->run, UM_ERR_IO, "%s: the temporary's name is too long", t->what);
  memcpy(t->tmp, name, len);
  return UM_SUCCESS;
}

static int append_turn(um_context *ctx, void *arg) {
  (void)ctx;
  turn *t = arg;
  if (t->root) return root_turn(t);
  if (!t->n) return UM_SUCCESS;
  const char *tmp = (const char *)t->tmp;
  FILE *f = fopen(tmp, "ab");
  if (!f)
    return um_app_fail(t->run, UM_ERR_IO, "%s: rank %d cannot open '%s' to append its rows: %s (%s)", t->what,
                       um_mpi_rank(), tmp, strerror(errno), um_safe_why(errno));
  const int bad = fwrite(t->mine, 1, t->n, f) != t->n;
  const int e = errno;
  if (fclose(f) != 0 || bad)
    return um_app_fail(t->run, UM_ERR_IO, "%s: rank %d could not append its rows to '%s': %s (%s)", t->what,
                       um_mpi_rank(), tmp, strerror(bad ? e : errno), um_safe_why(bad ? e : errno));
  return UM_SUCCESS;
}

/* The root's turn runs first; the others need the temporary's name before theirs: the root's turn is taken
 * outside the ring, its outcome and the name sent to every rank, then the other ranks take theirs in order. */
int um_app_write_blocks(um_app_run *run, const char *path, const char *head, const void *mine, size_t n,
                        const char *what) {
  turn t = {run, path, head, what, mine, n, um_app_writes(run), {0}, 0, {0}};
  const int distributed = um_context_nranks(run->ctx) > 1;
  if (!distributed && !t.root) return um_app_output_done(run, UM_SUCCESS); /* every rank holds the whole: rank 0 */
  int rc = t.root ? root_turn(&t) : UM_SUCCESS;
  rc = um_app_output_done(run, rc);
  if (!rc && distributed) rc = um_app_output_done(run, um_mpi_bcast_int(t.tmp, (int)(sizeof t.tmp / sizeof(int))));
  if (!rc && distributed) {
    const int root = t.root;
    t.root = 0; /* the root's rows are in */
    t.n = root ? 0 : t.n;
    rc = um_in_turn(run->ctx, append_turn, &t);
  }
  char why[1200];
  if (t.opened && rc)
    um_safe_abort(&t.sf);
  else if (t.opened && um_safe_commit(&t.sf, why, sizeof why))
    rc = um_app_fail(run, UM_ERR_IO, "%s: %s", what, why);
  return um_app_output_done(run, rc);
}

/* Each of the chunks formats its rows into its own span of the buffer (a span: its rows at max_row bytes each and
 * the zero sprintf writes after the last), then the spans are moved down, in order, to follow one another. */
char *um_app_format_rows(const um_app_run *run, size_t n, size_t max_row, um_app_row_fn row, const void *data,
                         size_t *len) {
  *len = 0;
  int nt = n < 4096 ? 1 : um_context_host_threads(run->ctx);
  if (nt < 1) nt = 1;
  const size_t chunks = nt == 1 ? 1 : 8 * (size_t)nt; /* several a thread: lines differ in length */
  const size_t per = n / chunks + (n % chunks != 0), span = per * max_row + 1;
  char *text = malloc(chunks * span + 1);
  size_t *used = calloc(chunks, sizeof *used);
  if (!text || !used) {
    free(text), free(used);
    return NULL;
  }
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
  for (long c = 0; c < (long)chunks; c++) {
    const size_t b = (size_t)c * per, e = b + per < n ? b + per : n;
    char *out = text + (size_t)c * span;
    size_t k = 0;
    for (size_t i = b; i < e; i++) k += row(data, i, out + k);
    used[c] = k;
  }
  size_t l = 0;
  for (size_t c = 0; c < chunks; c++) {
    memmove(text + l, text + c * span, used[c]);
    l += used[c];
  }
  text[l] = '\0';
  free(used);
  *len = l;
  return text;
}
