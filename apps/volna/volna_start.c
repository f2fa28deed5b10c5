/* Volna on um: the checks of the state the deck's Init events make at step 0, before the first step. Upstream Volna
 * (9bab009) runs any such state; these stop the decks whose run would be meaningless, each saying which Init lines
 * made the state and what to write instead:
 *   - a value that is not finite (a formula such as sqrt(-1)): the cell and its values;
 *   - a negative water depth: upstream's InitEta adds the formula to H with no clamp (sp/volna_init.cpp, InitEta;
 *     sp/initEta_formula.h), and only a bathymetry event keeps H >= EPS (sp/initBathymetry_update.h), so the run
 *     would start with a negative volume;
 *   - no water at all with no Time dtmax: with no wave anywhere the time step is unbounded (dtmax, FLT_MAX by
 *     default) and the run would end in one step at t = 3.4e38. */
#include "volna_internal.h"

/* upstream's timer_happens at iteration 0 and t = 0 (iter == 0 always happens within the window) */
static int runs_at_start(const vl_timer *t) { return t->istart == 0 && t->start <= 0 && t->end >= 0; }

static int is_init(int kind) { return kind <= VL_INIT_GAUSSIAN_LANDSLIDE; }

/* a timer by time (step given) not run at t = 0: the earliest t it can run at */
static double first_run(const vl_timer *t) { return t->step == -1 || t->step < t->start ? t->start : t->step; }

/* When an Init: 1 at step 0; 0 after it, before Time end; 2 never. An Init event runs before its step, while t <
 * Time end; by time (step given) first where the time since t = 0 reaches step (step -1: every step) and t >= start,
 * and only while t < end; by iterations first at iteration istep (the parser refuses a start > 0 and the windows that
 * exclude istep). */
static int when(const vl_timer *t, double final_time) {
  if (runs_at_start(t)) return 1;
  if (t->step == 3.402823466e+38) return 0; /* no step: new_event's "infinite" */
  return first_run(t) < t->end && first_run(t) < final_time ? 0 : 2;
}

/* The deck's Init lines that run at step 0 (at 1), later (0) or never (2), of Eta alone (eta 1) or of any kind (0):
 * "a, b, c"; the count. */
static int init_lines(const vl_deck *d, int at, int eta, char *out, size_t n) {
  size_t o = 0;
  int count = 0;
  out[0] = 0;
  for (int i = 0; i < d->nevents; i++) {
    const vl_event *e = &d->events[i];
    if (!is_init(e->kind) || when(&e->timer, d->final_time) != at || (eta && e->kind != VL_INIT_ETA)) continue;
    if (o + 16 < n) o += (size_t)snprintf(out + o, n - o, "%s%d", o ? ", " : "", e->line);
    count++;
  }
  return count;
}

/* The values whole in the deck's cell order (on the failure paths only: every rank calls it, as every rank saw the
 * same reductions). NULL, said, when there is no memory. */
static float *values_whole(vl_solver *S) {
  const size_t n = (size_t)S->mesh.ncells;
  float *v = malloc(sizeof(float) * 4 * n + 1);
  int rc = v ? um_dat_fetch_original_order(S->ctx, S->values, v, sizeof(float) * 4 * n) : UM_ERR_ALLOC;
  if (rc) {
    free(v);
    um_app_fail(S->r, rc, "%s: out of memory reading back the initial state", S->deck.file);
    return NULL;
  }
  return v;
}

/* " at (x, y)" for cell c where the mesh's centres are held whole (not when the mesh is declared by blocks) */
static void where(const vl_solver *S, long c, char *out, size_t n) {
  out[0] = 0;
  if (S->mesh.cell_xy && c >= 0)
    snprintf(out, n, ", centre (%g, %g)", S->mesh.cell_xy[2 * c], S->mesh.cell_xy[2 * c + 1]);
}

static int not_finite(vl_solver *S) {
  char lines[200], at[80];
  init_lines(&S->deck, 1, 0, lines, sizeof lines);
  float *v = values_whole(S);
  if (!v) return UM_ERR_ALLOC;
  static const char *const names[4] = {"H", "U", "V", "Zb"};
  long c = 0;
  while (c < S->mesh.ncells && isfinite(v[4 * c]) && isfinite(v[4 * c + 1]) && isfinite(v[4 * c + 2]) &&
         isfinite(v[4 * c + 3]))
    c++;
  char what[240] = "a sum over the cells is not finite";
  if (c < S->mesh.ncells) {
    where(S, c, at, sizeof at);
    size_t o = (size_t)snprintf(what, sizeof what, "cell %ld%s has", c, at);
    for (int k = 0, n = 0; k < 4; k++)
      if (!isfinite(v[4 * c + k]))
        o += (size_t)snprintf(what + o, sizeof what - o, "%s %s = %g", n++ ? "," : "", names[k], v[4 * c + k]);
  }
  free(v);
  return um_app_fail(S->r, UM_ERR_CONFIG,
                     "%s: the initial state the deck's Init events make is not finite (%s): check "
                     "their formulas (the values of x, y and t they see) and that they run at step 0 (Init lines "
                     "that run at step 0: %s)",
                     S->deck.file, what, lines[0] ? lines : "none");
}

/* The Init events after which the depth can be negative at step 0: those of Eta (H += formula) and
 * GaussianLandslide (H -= Zb the first time) after the last bathymetry event (which makes H >= EPS), in deck order.
 * The last one's index, or -1; `lines` lists them all. */
static int negative_depth_events(const vl_deck *d, char *lines, size_t n) {
  int last = -1;
  size_t o = 0;
  lines[0] = 0;
  for (int i = 0; i < d->nevents; i++) {
    const vl_event *e = &d->events[i];
    if (!is_init(e->kind) || !runs_at_start(&e->timer)) continue;
    if (e->kind == VL_INIT_BATHYMETRY || e->kind == VL_INIT_BATHYRELATIVE) last = -1, o = 0, lines[0] = 0;
    if (e->kind != VL_INIT_ETA && e->kind != VL_INIT_GAUSSIAN_LANDSLIDE) continue;
    last = i;
    if (o + 16 < n) o += (size_t)snprintf(lines + o, n - o, "%s%d", o ? ", " : "", e->line);
  }
  return last;
}

static int negative_depth(vl_solver *S, double volume) {
  const vl_deck *d = &S->deck;
  char lines[200], at[80];
  const int last = negative_depth_events(d, lines, sizeof lines);
  float *v = values_whole(S);
  if (!v) return UM_ERR_ALLOC;
  long nneg = 0, cmin = 0;
  for (long c = 0; c < S->mesh.ncells; c++) {
    nneg += v[4 * c] < 0;
    if (v[4 * c] < v[4 * cmin]) cmin = c;
  }
  const double hmin = v[4 * cmin];
  free(v);
  where(S, cmin, at, sizeof at);
  const vl_event *e = last >= 0 ? &d->events[last] : NULL;
  char head[1200];
  if (e)
    snprintf(head, sizeof head, "%s:%d: %s", d->file, e->line, vl_event_name(e->kind));
  else
    snprintf(head, sizeof head, "%s: the Init events", d->file);
  const int eta = !e || e->kind == VL_INIT_ETA;
  const char *why = eta ? "Volna adds an Init Eta to the depth H = eta - Zb with no check, as upstream does, and only "
                          "a bathymetry event makes H >= 1e-6 (dry land); keep the Eta formula at or above the "
                          "bathymetry, or put the Init Eta before the Init Bathymetry (whose first run then leaves "
                          "the cells where the surface is below the bottom dry)"
                        : "its first run sets H = eta - Zb with no check, as upstream's does; lower A, or make the "
                          "sea floor deeper where the landslide meets the beach (a larger lx)";
  return um_app_fail(S->r, UM_ERR_CONFIG,
                     "%s makes the water depth negative at the start in %ld of %d cells (%s, down "
                     "to H = %g at cell %ld%s; the initial volume would be %g)%s%s%s: %s",
                     head, nneg, S->mesh.ncells,
                     eta ? "the surface eta below the bottom Zb" : "the landslide's floor above the water", hmin, cmin,
                     at, volume, strchr(lines, ',') ? " (Init lines " : "", strchr(lines, ',') ? lines : "",
                     strchr(lines, ',') ? ")" : "", why);
}

static int no_water(vl_solver *S, double hmax) {
  const vl_deck *d = &S->deck;
  char eta[200], later[200], never[200], hint[600] = "", hint2[640] = "";
  const int neta = init_lines(d, 0, 1, eta, sizeof eta), nlater = init_lines(d, 0, 0, later, sizeof later);
  const int nnever = init_lines(d, 2, 0, never, sizeof never);
  for (int i = 0; i < d->nevents && nnever && !hint2[0]; i++) { /* by time, first due at or after an end */
    const vl_timer *t = &d->events[i].timer;
    char who[40] = "it";
    if (nnever > 1) snprintf(who, sizeof who, "the one of line %d", d->events[i].line);
    if (is_init(d->events[i].kind) && when(t, d->final_time) == 2)
      snprintf(hint2, sizeof hint2,
               "; the Init event%s of line%s %s never run%s: by time, %s would first run at t = %g (t >= start = %g "
               "and the time since t = 0 >= step = %g), not before its end = %g or Time end = %g",
               nnever > 1 ? "s" : "", nnever > 1 ? "s" : "", never, nnever > 1 ? "" : "s", who, first_run(t),
               (double)t->start, (double)t->step, (double)t->end, d->final_time);
  }
  if (neta && d->dtmax < 3.4e38) { /* dry steps of dtmax until the Eta adds water: upstream's run, said */
    if (um_app_writes(S->r))
      fprintf(S->r->log,
              "volna: note: %s: no water at the start (every cell dry, H <= 1e-6): the steps are Time "
              "dtmax = %g long until the Init Eta of line%s %s adds water\n",
              d->file, d->dtmax, neta > 1 ? "s" : "", eta);
    return UM_SUCCESS;
  }
  if (neta) /* with no dtmax */
    snprintf(hint, sizeof hint,
             "; or, for the water of the Init Eta of line%s %s (after step 0), give Time { dtmax = "
             "<seconds> } to step to it",
             neta > 1 ? "s" : "", eta);
  else if (nlater)
    snprintf(hint, sizeof hint,
             " (the Init event%s of line%s %s run%s only after step 0, where a bathymetry "
             "moves the floor under the water there is, as upstream's does, and adds none)",
             nlater > 1 ? "s" : "", nlater > 1 ? "s" : "", later, nlater > 1 ? "" : "s");
  return um_app_fail(S->r, UM_ERR_CONFIG,
                     "%s: no water at the start: after the Init events of step 0 every cell is "
                     "dry (the deepest H = %g; dry is H <= 1e-6), so no water bounds the CFL time step%s: the first "
                     "step would end far past the end time; put the water there at step 0: an Init { istart = 0 "
                     "iend = 0 } Bathymetry { return <bottom below 0 where the water is>; } (the depth is -Zb) and, "
                     "for a surface other than 0, an Init { istart = 0 iend = 0 } Eta { ... }%s%s",
                     d->file, hmax, d->dtmax < 3.4e38 ? "" : " (and the deck sets no Time dtmax)", hint, hint2);
}

int vl_check_start(vl_solver *S, int rc, const double *sum, const double *mn, const double *mx) {
  if (rc == UM_ERR_DIVERGED) return not_finite(S);
  if (rc) return rc;
  if (mn[0] < 0) return negative_depth(S, sum[0]);
  if (mx[0] <= (double)1e-6f) return no_water(S, mx[0]);
  return UM_SUCCESS;
}
