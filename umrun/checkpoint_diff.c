/* What differs between a checkpoint and the run restarting from it, as text (key = value lines compared; the
 * ranks and the backend that ran it). */
#include <stdio.h>
#include <string.h>

#include "checkpoint_run.h"
#include "um/checkpoint.h"
#include "um/um.h"

/* The first line of `a` (key = value lines) whose key is not in `b` with the same value, into out: "key: x there,
 * y here". A line only in b counts too. Returns how many differ; all of them listed into out with `sep`. */
int umrun_ckpt_diff_lines(const char *there, const char *here, char *out, size_t len, const char *sep) {
  int n = 0;
  size_t o = 0;
  out[0] = 0;
  for (int pass = 0; pass < 2; pass++) {
    const char *a = pass ? here : there, *b = pass ? there : here;
    for (const char *p = a; p && *p;) {
      const char *nl = strchr(p, '\n'), *eq = strstr(p, " = ");
      const size_t ll = nl ? (size_t)(nl - p) : strlen(p);
      if (eq && eq < p + ll) {
        const size_t kl = (size_t)(eq - p);
        const char *q = b, *match = NULL;
        while (q && *q) { /* the same key in b */
          const char *qnl = strchr(q, '\n');
          if (!strncmp(q, p, kl) && !strncmp(q + kl, " = ", 3)) match = q;
          q = qnl ? qnl + 1 : NULL;
        }
        const char *mnl = match ? strchr(match, '\n') : NULL;
        const size_t ml = match ? (mnl ? (size_t)(mnl - match) : strlen(match)) : 0;
        const int same = match && ml == ll && !strncmp(match, p, ll);
        if (!same && (pass == 0 || !match)) { /* a changed key is listed once, from the first pass */
          n++;
          const char *v1 = pass ? "(default)" : NULL, *v2 = NULL;
          char a1[256], a2[256];
          snprintf(a1, sizeof a1, "%.*s", (int)(ll - kl - 3), eq + 3);
          if (match)
            snprintf(a2, sizeof a2, "%.*s", (int)(ml - kl - 3), match + kl + 3);
          else
            snprintf(a2, sizeof a2, "(default)");
          v1 = pass ? a2 : a1;
          v2 = pass ? a1 : a2;
          if (o < len)
            o += (size_t)snprintf(out + o, len - o, "%s%.*s: %s in the checkpoint, %s now", n > 1 ? sep : "", (int)kl,
                                  p, v1, v2);
        }
      }
      p = nl ? nl + 1 : NULL;
    }
  }
  return n;
}

/* Rank 0 at a restart: the settings of how it runs that differ from the checkpoint's (config keys; then the ranks
 * and the backend that runs the loops, which the config may leave to the machine: run.backend auto), on the log. */
void umrun_ckpt_say_changes(um_app_run *run, const um_checkpoint_file *f, const char *here) {
  const char *sep = "\n    ", *there = um_checkpoint_text_get(f, "settings");
  const char *ranks = um_checkpoint_text_get(f, "ranks"), *backend = um_checkpoint_text_get(f, "backend");
  char diffs[3000], now[32];
  int n = umrun_ckpt_diff_lines(there ? there : "", here, diffs, sizeof diffs, sep);
  size_t o = strlen(diffs);
  snprintf(now, sizeof now, "%d", um_context_nranks(run->ctx));
  if (ranks && strcmp(ranks, now) && o < sizeof diffs)
    o += (size_t)snprintf(diffs + o, sizeof diffs - o, "%sranks: %s in the checkpoint, %s now", n++ ? sep : "", ranks,
                          now);
  const char *b = um_context_backend(run->ctx);
  char said[128]; /* run.backend's own line, when it named both backends already */
  snprintf(said, sizeof said, "run.backend: %s in the checkpoint, %s now", backend ? backend : "", b);
  if (backend && strcmp(backend, b) && !strstr(diffs, said) && o < sizeof diffs) /* auto chose another */
    o +=
        (size_t)snprintf(diffs + o, sizeof diffs - o, "%sthe backend that runs the loops: %s in the checkpoint, %s now",
                         n++ ? sep : "", backend, b);
  if (n)
    fprintf(run->log, "restart: settings that differ from the checkpoint's (how it runs, not what):\n    %s\n", diffs);
}
