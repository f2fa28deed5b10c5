/* LULESH as a umrun app.
 *
 * Config (upstream's options in brackets):
 *   params.size: 30      elements along an edge [-s]
 *   params.regions: 11   material regions [-r]
 *   params.balance: 1    region weights (i+1)^balance [-b]
 *   params.cost: 1       extra EOS work in the costly regions [-c]
 *   params.forces: inc   inc: nodal forces INC through elem -> nodes (the engine's
 *                        strategies); gather: upstream's per-corner forces + node gather
 *   params.fused: true   fuse neighbouring loops (as upstream's GPU port); false: one
 *                        loop per upstream function (same results to rounding)
 *   run.iterations: N    stop after N cycles [-i]; unset: run to the end time (0.01)
 *   output: {dir: ..., hdf5: true}   final fields as HDF5 + XDMF (ParaView, VisIt)
 */
#include <math.h>
#include <string.h>
#include "um/app.h"
#include "lulesh.h"

#define CHOICES(...) ((const char *const[]){__VA_ARGS__, NULL})
/* lulesh's options, declared once (read with um_app_int etc.; --list-apps, docs/options.md). Their
 * defaults are upstream's, set by lulesh_params_default (lulesh.c) before the reads: declared with
 * none here, an unset key keeps that value. */
static const um_option lulesh_options[] = {
    {.key = "params.size", .type = UM_OPT_INT,
     .help = "elements along an edge (upstream's -s); (size+1)^3 nodes;\n"
             "default: lulesh_params_default's (30, upstream's)"},
    {.key = "params.regions", .type = UM_OPT_INT,
     .help = "material regions (-r); default: lulesh_params_default's (11, upstream's)"},
    {.key = "params.balance", .type = UM_OPT_INT,
     .help = "region weights (i+1)^balance (-b); default: lulesh_params_default's (1, upstream's)"},
    {.key = "params.cost", .type = UM_OPT_INT,
     .help = "extra EOS repetitions of the costly regions (-c); default: lulesh_params_default's (1, upstream's)"},
    {.key = "params.forces", .type = UM_OPT_CHOICE, .choices = CHOICES("inc", "gather"),
     .help = "inc: nodal forces INC through elem_nodes (the engine's strategies);\n"
             "gather: upstream's per-corner forces + a node gather;\n"
             "default: lulesh_params_default's (inc)"},
    {.key = "params.fused", .type = UM_OPT_BOOL,
     .help = "fuse neighbouring loops (as upstream's GPU port); false: one loop per upstream function\n"
             "(same results to rounding); default: lulesh_params_default's (true)"},
    {.key = "params.eos", .type = UM_OPT_CHOICE, .def = "regions", .choices = CHOICES("regions", "merged", "merged_q"),
     .help = "regions: one EOS loop per region (eos_r1 .. eos_r<regions>), as upstream; merged: one loop over every\n"
             "region's elements, grouped by their region's repetition count, each repeating its EOS, with the volume update and\n"
             "time constraints in the same pass (eos_constraints): the same results, one launch instead of\n"
             "regions + 1 (faster on GPUs: docs/benchmarks.md); merged_q: merged, each element's monotonic Q\n"
             "computed first in the same pass (q_eos_constraints; no monoq loop, qq and ql never stored): the\n"
             "same results; both need params.fused"},
    {.key = "params.numbering", .type = UM_OPT_CHOICE, .def = "rows", .choices = CHOICES("rows", "strips"),
     .help = "the elements' order: rows (upstream's, x fastest) or strips two rows high ((i, j) then (i, j+1), then\n"
             "(i+1, j) ...): the same results to rounding (fields and metrics in upstream's order); on GPUs a warp's\n"
             "elements then share nodes in x and y, and cuda.warp_combine: 2 pairs both (one atomic for up to four)"},
    {.key = "run.iterations", .type = UM_OPT_INT,
     .help = "cycle cap (upstream's -i), >= 1; unset: run to the end time 0.01. With output:\n"
             "{dir: ..., hdf5: true} the final fields go to lulesh.h5 + lulesh.xmf (hexahedra; e, p, q, v, ss)"},
};

static int read_params(um_app_run *r, lulesh_params *p) {
  int f = -1, has_iterations = 0;
  lulesh_params_default(p); /* the defaults of the options declared with none */
  UM_APP_TRY(um_app_int(r, "params.size", &p->size));
  UM_APP_TRY(um_app_int(r, "params.regions", &p->regions));
  UM_APP_TRY(um_app_int(r, "params.balance", &p->balance));
  UM_APP_TRY(um_app_int(r, "params.cost", &p->cost));
  UM_APP_TRY(um_app_choice(r, "params.forces", &f, NULL));
  UM_APP_TRY(um_app_bool(r, "params.fused", &p->fused));
  UM_APP_TRY(um_app_choice(r, "params.eos", &p->eos_merged, NULL));
  UM_APP_TRY(um_app_choice(r, "params.numbering", &p->strips, NULL));
  UM_APP_TRY(um_app_has(r, "run.iterations", &has_iterations));
  UM_APP_TRY(um_app_int(r, "run.iterations", &p->max_cycles));
  if (has_iterations && p->max_cycles < 1)
    return um_app_fail(r, UM_ERR_CONFIG,
                       "run.iterations = %d: must be >= 1 (upstream's -i); leave it out to run to the end time",
                       p->max_cycles);
  if (f >= 0) p->forces = f == 1 ? LULESH_FORCES_GATHER : LULESH_FORCES_INC;
  /* under mpirun (mpi.mesh: blocks) each rank generates only its block of the cube; the strips numbering
   * renumbers the whole mesh before it is distributed */
  UM_APP_TRY(um_app_by_blocks(r, &p->by_blocks));
  if (p->by_blocks && p->strips) {
    um_app_whole_note(r, "params.numbering: strips renumbers the whole mesh");
    p->by_blocks = 0;
  }
  int rows32 = 0;
  UM_APP_TRY(um_app_rows32(r, &rows32));
  p->rows64 = !rows32;
  p->declare_halo = rows32; /* "ranges" on several ranks: the halo it would find, declared by the generator */
  return UM_SUCCESS;
}

static int write_output(um_app_run *r) {
  const char *fields[] = {"e", "p", "q", "v", "ss"};
  const int dims[] = {1, 1, 1, 1, 1};
  return um_app_write_mesh_xdmf(r, "lulesh", "coord", 3, "elem_nodes", fields, dims, 5);
}

/* LULESH's own steps report through a buffer; their messages join the context's. */
static int lulesh_err(um_app_run *r, int rc, const char *err) { return rc && err[0] ? um_app_fail(r, rc, "%s", err) : rc; }

static int lulesh_run(um_app_run *r) {
  char err[1024] = "";
  lulesh_params p;
  UM_APP_TRY(read_params(r, &p));
  double t0 = um_wtime();
  lulesh_state *s = NULL;
  UM_APP_TRY(lulesh_err(r, lulesh_setup(r->ctx, &p, &s, err, sizeof err), err));
  int rc = um_app_prepare(r, "elem_nodes");
  if (rc) {
    lulesh_state_free(&s);
    return rc;
  }
  /* global counts, 64-bit (the sets', over every rank: a mesh declared by blocks may pass INT_MAX elements) */
  const long long nelem = um_set_gsize(um_find_set(r->ctx, "elems"));
  const long long nnode = um_set_gsize(um_find_set(r->ctx, "nodes"));
  fprintf(r->log,
          "lulesh: Sedov blast, %d^3 elements (%lld), %lld nodes, %d regions (balance %d, cost %d), forces %s, %s "
          "loops; %s%s\n",
          p.size, nelem, nnode, p.regions, p.balance, p.cost, p.forces == LULESH_FORCES_GATHER ? "gather" : "inc",
          p.fused ? "fused" : "unfused",
          p.max_cycles > 0 ? "cycle cap set (run.iterations)" : "running to t = 0.01",
          p.by_blocks ? "; each rank generated only its block of the mesh" : "");
  /* checkpoints: the Domain scalars travel with the dats; a restart continues from its cycle */
  const char *vname;
  void *vp;
  size_t vbytes;
  for (int i = 0; !rc && lulesh_state_value(s, i, &vname, &vp, &vbytes); i++) rc = um_app_state(r, vname, vp, vbytes);
  long resumed = 0;
  if (!rc) rc = um_app_resume(r, &resumed);
  const int checkpoints = um_app_checkpointing(r);
  um_app_setup_done(r, t0);
  const double t_run = um_wtime();
  int done = 0, cycle = 0;
  double time = 0, stoptime = 1, t_first = 0;
  while (!rc) {
    rc = lulesh_err(r, lulesh_step(r->ctx, s, &done, err, sizeof err), err);
    if (rc || done) break;
    lulesh_state_progress(s, &cycle, &time, &stoptime);
    int due = 0;
    if (checkpoints) rc = um_app_checkpoint_due(r, cycle, &due);
    if (!rc && due) rc = lulesh_err(r, lulesh_settle(r->ctx, s, err, sizeof err), err);
    /* the cycle after which lulesh_step says done: its time reached the end, or the cycle cap */
    const int last = !(time < stoptime) || (p.max_cycles > 0 && cycle >= p.max_cycles);
    if (!rc) rc = um_app_step_end_last(r, cycle, last);
    if (rc) break;
    if (cycle == resumed + 1) { /* the first cycle also uploads data, builds plans, compiles kernels */
      rc = um_sync(r->ctx);
      t_first = um_wtime() - t_run;
    }
    if (cycle % 100 == 0) {
      um_app_progress_clear(r);
      fprintf(r->log, " cycle %6d  t = %.6e\n", cycle, time);
      fflush(r->log);
    }
    if (p.max_cycles > 0) um_app_progress(r, "lulesh cycles", cycle, p.max_cycles);
    else um_app_progress(r, "lulesh t/t_end x1000", (long)(1000.0 * time / stoptime), 1000);
  }
  um_app_progress_clear(r);
  if (!rc) rc = um_app_loop_done(r);
  lulesh_result res;
  if (!rc) rc = um_sync(r->ctx);
  r->run_seconds = um_wtime() - t_run;
  if (!rc) rc = lulesh_err(r, lulesh_finish(r->ctx, s, &res, err, sizeof err), err);
  lulesh_state_free(&s);
  if (rc) return rc;

  /* the first cycle uploads the data, builds plans and (CUDA) compiles kernels:
   * the rate is taken over the cycles after it, as upstream's timer sees none of that */
  double compile = 0;
  for (int i = 0; i < um_loop_stats_count(r->ctx); i++) {
    um_loop_stats st;
    double c = 0;
    if (um_loop_stats_get(r->ctx, i, &st) == UM_SUCCESS && um_loop_stats_counter(&st, "compile_seconds", &c)) compile += c;
  }
  r->steps = res.cycles - resumed; /* the cycles this run timed */
  r->first_step_seconds = t_first;
  const double steady = um_app_step_seconds(r);
  const double zps = steady > 0 ? (double)nelem / steady : 0;
  fprintf(r->log, "lulesh: run completed\n");
  fprintf(r->log, "  size                 %d (%lld elements)\n", p.size, nelem);
  fprintf(r->log, "  iterations           %d (t = %.6e)\n", res.cycles, res.time);
  fprintf(r->log, "  final origin energy  %.6e  (%.17e)\n", res.origin_energy, res.origin_energy);
  fprintf(r->log, "  symmetry of plane 0  max abs diff %.6e, total abs diff %.6e, max rel diff %.6e\n",
          res.sym_max_abs, res.sym_total_abs, res.sym_max_rel);
  fprintf(r->log, "  time stepping        %.3f s: first cycle %.3f s (with plans, device uploads%s), then %.4f ms "
          "per cycle, grind %.4g us/element/cycle, %.4g zones/s\n",
          r->run_seconds, t_first, compile > 0 ? ", run-time compilation" : "", 1e3 * steady,
          zps > 0 ? 1e6 / zps : 0.0, zps);
  UM_APP_TRY(um_app_metric(r, "elements", (double)nelem));
  UM_APP_TRY(um_app_metric(r, "nodes", (double)nnode));
  UM_APP_TRY(um_app_metric(r, "iterations", res.cycles));
  UM_APP_TRY(um_app_metric(r, "final_time", res.time));
  UM_APP_TRY(um_app_metric(r, "origin_energy", res.origin_energy));
  UM_APP_TRY(um_app_metric(r, "sym_max_abs_diff", res.sym_max_abs));
  UM_APP_TRY(um_app_metric(r, "sym_total_abs_diff", res.sym_total_abs));
  UM_APP_TRY(um_app_metric(r, "sym_max_rel_diff", res.sym_max_rel));
  UM_APP_TRY(um_app_metric(r, "ms_per_iteration", 1e3 * steady));
  UM_APP_TRY(um_app_metric(r, "first_cycle_seconds", t_first));
  UM_APP_TRY(um_app_metric(r, "compile_seconds", compile));
  UM_APP_TRY(um_app_metric(r, "zones_per_second", zps));
  return write_output(r);
}

const um_app um_app_lulesh = {
    .name = "lulesh",
    .description = "LULESH 2.0 Sedov blast, Lagrangian hydro on a hex8 mesh (LLNL proxy app): per-region EOS, INC or gather forces",
    .run = lulesh_run,
    .options = lulesh_options,
    .noptions = (int)(sizeof lulesh_options / sizeof lulesh_options[0]),
    /* what makes it different (umrun --report) */
    .report_note =
        "LULESH is a 3D Lagrangian shock-hydrodynamics proxy on hexahedra: kinematics live on nodes, thermodynamics on "
        "elements. Element loops gather the 8 corner nodes (indirect reads through the element-to-node map) and do a lot "
        "of arithmetic per element (the hourglass control and the equation of state), so its loops have the highest "
        "arithmetic intensity of the suite; forces reach the nodes by increments through the element-to-node map "
        "(params.forces: inc, the default) or by a node-to-corner gather without increments (params.forces: gather), "
        "and the time step comes from MIN reductions."};
