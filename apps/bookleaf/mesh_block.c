/* BookLeaf's mesh by blocks: the initial state of one element or node (upstream's setup_IC, computed alone: the
 * whole mesh of mesh.c takes it from here too), and a rank's block of a regular mesh (one whose relaxation moves
 * no point of its transfinite start, as every shipped Sod, Sedov and blast deck): each node from the region's
 * sides alone, each element's nodes, neighbours and state from its own numbers, so that a rank makes only its
 * rows, never the whole mesh. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bookleaf_mesh.h"
#include "um/um.h"

int bl_ferr(const bl_deck *d, const char *key, char *err, size_t errlen, const char *fmt, ...) {
  char msg[700];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const int line = key ? bl_deck_line(d, key) : 0;
  if (key && line) return um_format_error(err, errlen, UM_ERR_CONFIG, "%s:%d: %s: %s", d->file, line, key, msg);
  if (key) return um_format_error(err, errlen, UM_ERR_CONFIG, "%s: %s: %s", d->file, key, msg);
  return um_format_error(err, errlen, UM_ERR_CONFIG, "%s: %s", d->file, msg);
}

void bl_upper(const char *s, char *out, size_t n) {
  while (*s == ' ') s++;
  size_t k = 0;
  for (; *s && k + 1 < n; s++) out[k++] = (char)toupper((unsigned char)*s);
  while (k > 0 && out[k - 1] == ' ') k--;
  out[k] = 0;
}

int bl_is(const char *s, const char *name) {
  char u[BL_SLEN];
  bl_upper(s, u, sizeof u);
  return strcmp(u, name) == 0;
}

void bl_material_key(const char *name, char *out, size_t n) {
  size_t j = (size_t)snprintf(out, n, "material_");
  const size_t start = j;
  for (const char *q = name; *q && j + 1 < n; q++) /* lower case; a blank inside (the last of a run) as _ */
    if (*q != ' ' || (j > start && q[1] && q[1] != ' ')) out[j++] = *q == ' ' ? '_' : (char)tolower((unsigned char)*q);
  out[j] = 0;
  if (j == start) snprintf(out, n, "material_unnamed");
}

/* Two materials whose metrics would share a name (material_<name>_*: the same name, or one that differs only in case
 * or blanks) are refused: the second's would silently replace the first's. */
static int check_material_names(const bl_deck *d, const bl_ic *ic, char *err, size_t errlen) {
  char key[BL_MAXREG][16 + BL_SLEN];
  for (int i = 0; i < ic->nmat; i++) {
    bl_material_key(ic->material_name[i], key[i], sizeof key[i]);
    for (int k = 0; k < i; k++)
      if (!strcmp(key[k], key[i]))
        return bl_ferr(d, "material_name", err, errlen, "materials %d ('%s') and %d ('%s') have the same name (their "
                       "metrics would both be %s_*, the second's replacing the first's): give each material its own "
                       "material_name", k + 1, ic->material_name[k], i + 1, ic->material_name[i], key[i]);
  }
  return UM_SUCCESS;
}

#define TRY(call)        \
  do {                   \
    int rc_ = (call);    \
    if (rc_) return rc_; \
  } while (0)

/* ---- regions, materials, initial conditions ------------------------------------------------------------------ */

static int count_set(const char (*a)[BL_SLEN]) {
  int n = 0;
  for (int i = 0; i < BL_LN; i++)
    if (!bl_is(a[i], "UNKNOWN")) n++;
  return n;
}

/* An indicator entry's type (BL_IND_*; -1 unknown). */
static int indicator_kind(const char *s) {
  static const char *const names[] = {"BACKGROUND", "CELL", "SHAPE", "REGION", "MESH"};
  char u[BL_SLEN];
  bl_upper(s, u, sizeof u);
  for (int k = 0; k < (int)(sizeof names / sizeof names[0]); k++)
    if (!strcmp(u, names[k])) return k;
  return -1;
}

/* The checked deck's entry types, read once into ic. */
static void ic_kinds(const bl_deck *d, bl_ic *ic) {
  for (int i = 0; i < ic->nreg; i++) ic->region_kind[i] = indicator_kind(d->region_type[i]);
  for (int i = 0; i < ic->nmat; i++) ic->material_kind[i] = indicator_kind(d->material_type[i]);
  for (int s = 0; s < BL_LN; s++) ic->shape_rect[s] = bl_is(d->shape_type[s], "RECTANGLE");
  for (int ii = 0; ii < ic->nthermo; ii++) {
    ic->thermo_region[ii] = bl_is(d->thermodynamic_type[ii], "REGION");
    ic->thermo_scale[ii] = bl_is(d->thermodynamic_energy_scale[ii], "VOLUME") ? BL_SCALE_VOLUME
                           : bl_is(d->thermodynamic_energy_scale[ii], "MASS") ? BL_SCALE_MASS
                                                                             : BL_SCALE_NONE;
  }
  for (int ii = 0; ii < ic->nkin; ii++) ic->kin_radial[ii] = bl_is(d->kinematic_geometry[ii], "RADIAL");
}

/* The entries of an indicator list (regions or materials), checked: known types, cells in the mesh, shapes
 * defined (REGION only for materials: `regions` 0 for the regions' own list). */
static int check_flags(const bl_deck *d, long long nel, const char (*types)[BL_SLEN], const int *values, int n,
                       int regions, const char *what, const char *key, char *err, size_t errlen) {
  for (int ii = 0; ii < n; ii++) {
    char t[BL_SLEN];
    bl_upper(types[ii], t, sizeof t);
    if (!strcmp(t, "BACKGROUND") || (!strcmp(t, "REGION") && regions)) continue;
    if (!strcmp(t, "CELL")) {
      if (values[ii] < 1 || values[ii] > nel)
        return bl_ferr(d, key, err, errlen, "%s %d: cell %d is not in the mesh (1..%lld)", what, ii + 1, values[ii],
                       nel);
    } else if (!strcmp(t, "SHAPE")) {
      const int s = values[ii] - 1;
      if (s < 0 || s >= BL_LN || bl_is(d->shape_type[s], "UNKNOWN"))
        return bl_ferr(d, key, err, errlen, "%s %d: shape %d is not defined in &SHAPES", what, ii + 1, values[ii]);
      if (!bl_is(d->shape_type[s], "CIRCLE") && !bl_is(d->shape_type[s], "RECTANGLE"))
        return bl_ferr(d, "shape_type", err, errlen, "shape %d: unknown type '%s' (circle, rectangle)", s + 1,
                       d->shape_type[s]);
    } else {
      return bl_ferr(d, key, err, errlen, "%s %d: unknown type '%s'", what, ii + 1, types[ii]);
    }
  }
  return UM_SUCCESS;
}

int bl_ic_prepare(const bl_deck *d, long long nel, bl_ic *ic, char *err, size_t errlen) {
  memset(ic, 0, sizeof *ic);
  ic->nel = nel;
  ic->nreg = count_set(d->region_type);
  if (ic->nreg < 1) return bl_ferr(d, "region_type", err, errlen, "no regions defined (&INDICATORS region_type)");
  if (ic->nreg > BL_MAXREG)
    return bl_ferr(d, "region_type", err, errlen, "%d regions: this port supports up to %d", ic->nreg, BL_MAXREG);
  for (int i = 0; i < ic->nreg; i++) ic->rmesh |= bl_is(d->region_type[i], "MESH");
  if (!ic->rmesh)
    TRY(check_flags(d, nel, d->region_type, d->region_value, ic->nreg, 0, "region", "region_type", err, errlen));
  ic->nmat = count_set(d->material_type);
  if (ic->nmat < 1)
    return bl_ferr(d, "material_type", err, errlen, "no materials defined (&INDICATORS material_type)");
  if (ic->nmat > BL_MAXREG)
    return bl_ferr(d, "material_type", err, errlen, "%d materials: this port supports up to %d", ic->nmat, BL_MAXREG);
  for (int i = 0; i < ic->nmat; i++) ic->mmesh |= bl_is(d->material_type[i], "MESH");
  if (ic->mmesh) {
    const int rm = d->region_material[0];
    if (rm < 1 || rm > ic->nmat)
      return bl_ferr(d, "region_material", err, errlen, "material type MESH needs region_material(1) in 1..%d",
                     ic->nmat);
    ic->mesh_mat = rm - 1;
  } else {
    TRY(check_flags(d, nel, d->material_type, d->material_value, ic->nmat, 1, "material", "material_type", err,
                    errlen));
  }
  for (int i = 0; i < ic->nreg; i++) snprintf(ic->region_name[i], BL_SLEN, "%s", d->region_name[i]);
  for (int i = 0; i < ic->nmat; i++) snprintf(ic->material_name[i], BL_SLEN, "%s", d->material_name[i]);
  TRY(check_material_names(d, ic, err, errlen));
  const int nt = ic->nthermo = count_set(d->thermodynamic_type);
  for (int ii = 0; ii < nt; ii++) {
    const int region = bl_is(d->thermodynamic_type[ii], "REGION"), n = region ? ic->nreg : ic->nmat;
    if (!region && !bl_is(d->thermodynamic_type[ii], "MATERIAL"))
      return bl_ferr(d, "thermodynamic_type", err, errlen, "entry %d: unknown type '%s' (region, material)", ii + 1,
                     d->thermodynamic_type[ii]);
    if (d->thermodynamic_value[ii] < 1 || d->thermodynamic_value[ii] > n) /* the region's or material's number */
      return bl_ferr(d, "thermodynamic_value", err, errlen,
                     "entry %d names %s %d, but the deck has %s 1..%d (&INDICATORS %s_type)", ii + 1,
                     region ? "region" : "material", d->thermodynamic_value[ii], region ? "regions" : "materials", n,
                     region ? "region" : "material");
  }
  const int nkin = ic->nkin = count_set(d->kinematic_type);
  for (int ii = 0; ii < nkin; ii++) {
    if (!bl_is(d->kinematic_geometry[ii], "RADIAL") && !bl_is(d->kinematic_geometry[ii], "PLANAR"))
      return bl_ferr(d, "kinematic_geometry", err, errlen, "entry %d: unknown geometry '%s' (radial, planar)", ii + 1,
                     d->kinematic_geometry[ii]);
    if (!bl_is(d->kinematic_type[ii], "BACKGROUND"))
      return bl_ferr(d, "kinematic_type", err, errlen,
                     "entry %d: kinematic type '%s' is not supported by this port (background)", ii + 1,
                     d->kinematic_type[ii]);
  }
  ic_kinds(d, ic);
  return UM_SUCCESS;
}

/* The last entry of an indicator list that takes element e (-1: none); `reg` its region (materials). */
static int flag_element(const bl_deck *d, const bl_ic *ic, const int *kinds, const int *values, int n, long long e,
                        const double *c, int reg) {
  int flag = -1;
  for (int ii = 0; ii < n; ii++) {
    if (kinds[ii] == BL_IND_BACKGROUND) {
      flag = ii;
    } else if (kinds[ii] == BL_IND_CELL) {
      if (values[ii] - 1 == e) flag = ii;
    } else if (kinds[ii] == BL_IND_SHAPE) {
      const int s = values[ii] - 1, rect = ic->shape_rect[s];
      double p[5];
      for (int k = 0; k < 5; k++) p[k] = d->shape_param[k][s];
      const int in = rect ? (c[0] > p[0] && c[1] > p[1] && c[0] < p[2] && c[1] < p[3])
                          : sqrt((c[0] - p[0]) * (c[0] - p[0]) + (c[1] - p[1]) * (c[1] - p[1])) <= p[2];
      if (in) flag = ii;
    } else if (reg == values[ii] - 1) { /* REGION (materials; check_flags refused it for regions) */
      flag = ii;
    }
  }
  return flag;
}

/* An element's density and energy from the thermodynamic entries in order (REGION: its region; MATERIAL: its
 * material, never a mixed cell's -1); vol: its volume where an entry scales the energy by it (computed once). */
static void element_thermo(const bl_deck *d, const bl_ic *ic, int reg, int mat, const double cx[4],
                           const double cy[4], double *density, double *energy) {
  *density = *energy = 0.0;
  for (int ii = 0; ii < ic->nthermo; ii++) {
    const int flag = ic->thermo_region[ii] ? reg : mat;
    if (flag != d->thermodynamic_value[ii] - 1) continue;
    const int vol = ic->thermo_scale[ii] == BL_SCALE_VOLUME, mass = ic->thermo_scale[ii] == BL_SCALE_MASS;
    *density = d->density[ii];
    *energy = d->energy[ii];
    if (vol || mass) {
      double v;
      bl_geometry(cx, cy, NULL, NULL, NULL, NULL, NULL, &v);
      *energy /= vol ? v : d->density[ii] * v;
    }
  }
}

static int check_thermo(const bl_deck *d, long long e, int reg, double density, double energy, char *err,
                        size_t errlen) {
  if (!(density > 0.0))
    return bl_ferr(d, "density", err, errlen,
                   "element %lld (region %d) has density %g: the initial density must be > 0 everywhere", e + 1,
                   reg + 1, density);
  if (!(energy >= 0.0))
    return bl_ferr(d, "energy", err, errlen,
                   "element %lld (region %d) has specific internal energy %g: it must be >= 0", e + 1, reg + 1,
                   energy);
  return UM_SUCCESS;
}

int bl_element_state(const bl_deck *d, const bl_ic *ic, long long e, const double cx[4], const double cy[4],
                     int *reg, int *mat, double *density, double *energy, char *err, size_t errlen) {
  double c[2];
  bl_centroid(cx, cy, c);
  *reg = ic->rmesh ? 0 : flag_element(d, ic, ic->region_kind, d->region_value, ic->nreg, e, c, -2);
  if (*reg < 0)
    return bl_ferr(d, "region_type", err, errlen, "element %lld belongs to no region; add a BACKGROUND region", e + 1);
  *mat = ic->mmesh ? ic->mesh_mat : flag_element(d, ic, ic->material_kind, d->material_value, ic->nmat, e, c, *reg);
  if (*mat < 0)
    return bl_ferr(d, "material_type", err, errlen, "element %lld belongs to no material; add a BACKGROUND material",
                   e + 1);
  element_thermo(d, ic, *reg, *mat, cx, cy, density, energy);
  return check_thermo(d, e, *reg, *density, *energy, err, errlen);
}

/* ---- mixed-material cells (upstream's material_shape) ---------------------------------------------------------- */

#define BL_MIX_MAXIT 10 /* upstream's subdivision depth */

static int mix_inside(const double *p, int rect, double x, double y) {
  return rect ? (x > p[0] && y > p[1] && x < p[2] && y < p[3])
              : sqrt((x - p[0]) * (x - p[0]) + (y - p[1]) * (y - p[1])) <= p[2];
}

/* How much of a quadrilateral a shape covers, by its corners: 1 all inside, 0.5 some, 0 none. */
static double mix_intersect(const double *p, int rect, const double *x, const double *y) {
  int n = 0;
  for (int k = 0; k < 4; k++) n += mix_inside(p, rect, x[k], y[k]);
  return n == 4 ? 1.0 : n ? 0.5 : 0.0;
}

/* Upstream's estimate of the covered fraction: four quadrilaterals (a corner, the next, the centroid, the one before),
 * each whole, empty or subdivided again, to depth BL_MIX_MAXIT, where the centroid decides. */
static double mix_subdivide(int nit, const double *p, int rect, const double *x, const double *y) {
  double c[2];
  bl_centroid(x, y, c);
  if (nit + 1 > BL_MIX_MAXIT) return mix_inside(p, rect, c[0], c[1]) ? 1.0 : 0.0;
  double vf = 0.0;
  for (int i = 0; i < 4; i++) {
    const double qx[4] = {x[i], x[(i + 1) % 4], c[0], x[(i + 3) % 4]}, qy[4] = {y[i], y[(i + 1) % 4], c[1], y[(i + 3) % 4]};
    double v = mix_intersect(p, rect, qx, qy);
    if (v > 0.25 && v < 0.75) v = mix_subdivide(nit + 1, p, rect, qx, qy);
    vf += v;
  }
  return 0.25 * vf;
}

/* The material entries in order, as upstream's setup_materials: whole (BACKGROUND, CELL, REGION, a SHAPE with every
 * corner inside) or partly (a SHAPE with some). *mat the element's material, or -1 with its components in cp. */
static int mix_flags(const bl_deck *d, const bl_ic *ic, long long e, const double *cx, const double *cy, int reg,
                     int *mat, bl_component *cp, int *ncp, char *err, size_t errlen) {
  *mat = -1, *ncp = 0;
  for (int ii = 0; ii < ic->nmat; ii++) {
    const int t = ic->material_kind[ii];
    double vf = 1.0; /* 1: taken whole */
    if (t == BL_IND_CELL && d->material_value[ii] - 1 != e) continue;
    if (t == BL_IND_REGION && reg != d->material_value[ii] - 1) continue;
    if (t == BL_IND_SHAPE) {
      const int s = d->material_value[ii] - 1, rect = ic->shape_rect[s];
      double p[5];
      for (int k = 0; k < 5; k++) p[k] = d->shape_param[k][s];
      vf = mix_intersect(p, rect, cx, cy);
      if (vf <= 0.25) continue;
      if (vf <= 0.75) vf = -(p[4] > 0.0 ? p[4] : mix_subdivide(0, p, rect, cx, cy)); /* < 0: partly */
    }
    if (vf > 0.0) { /* the last entry that takes it whole wins (a mixed cell becomes pure) */
      *mat = ii, *ncp = 0;
      continue;
    }
    vf = -vf;
    if (*ncp == 0) {
      if (*mat < 0)
        return bl_ferr(d, "material_type", err, errlen, "element %lld is partly in material %d (%s) but has no "
                       "material before it to share the cell with: put a BACKGROUND material first", e + 1, ii + 1,
                       d->material_name[ii]);
      cp[0] = (bl_component){*mat, 1.0, 0.0, 0.0};
      *ncp = 1, *mat = -1;
    }
    /* the new component's volume comes out of the cell's first material: 1 - vf of it with one shape, as upstream.
     * With a second shape upstream appends its component and leaves the others (fractions adding up to 1 + vf): the
     * port takes that one's volume from the first material too */
    if (cp[0].fr - vf < 0.0)
      return bl_ferr(d, "shape_param", err, errlen, "the materials of element %lld do not tile it: material %d (%s) "
                     "takes %g of it, but only %g of its first material (%s) is left (shapes that overlap in one "
                     "cell, or a fraction over 1: give fractions that add up to at most 1, or separate the shapes)",
                     e + 1, ii + 1, d->material_name[ii], vf, cp[0].fr, d->material_name[cp[0].mat]);
    cp[0].fr -= vf;
    cp[(*ncp)++] = (bl_component){ii, vf, 0.0, 0.0};
  }
  /* a component of fraction 0 (upstream: a component of no volume, its density 0/0) is dropped; one left: pure */
  int k = 0;
  for (int i = 0; i < *ncp; i++)
    if (cp[i].fr > 0.0) cp[k++] = cp[i];
  *ncp = k;
  if (k == 1) *mat = cp[0].mat, *ncp = 0;
  return UM_SUCCESS;
}

int bl_element_mixed_state(const bl_deck *d, const bl_ic *ic, long long e, const double cx[4], const double cy[4],
                           int *reg, int *mat, double *density, double *energy, bl_component *cp, int *ncp, char *err,
                           size_t errlen) {
  double c[2];
  bl_centroid(cx, cy, c);
  *reg = ic->rmesh ? 0 : flag_element(d, ic, ic->region_kind, d->region_value, ic->nreg, e, c, -2);
  if (*reg < 0)
    return bl_ferr(d, "region_type", err, errlen, "element %lld belongs to no region; add a BACKGROUND region", e + 1);
  TRY(mix_flags(d, ic, e, cx, cy, *reg, mat, cp, ncp, err, errlen));
  if (*mat < 0 && *ncp == 0)
    return bl_ferr(d, "material_type", err, errlen, "element %lld belongs to no material; add a BACKGROUND material",
                   e + 1);
  element_thermo(d, ic, *reg, *mat, cx, cy, density, energy);
  TRY(check_thermo(d, e, *reg, *density, *energy, err, errlen));
  if (!*ncp) return UM_SUCCESS;
  /* the components: the MATERIAL entries of their material (the energy scaled by the component's volume), then, where
   * the deck has a REGION entry, those no MATERIAL entry names take the cell's state if their material is a
   * BACKGROUND or REGION one (upstream's setup_thermodynamic_rationalise) */
  double vol;
  bl_geometry(cx, cy, NULL, NULL, NULL, NULL, NULL, &vol);
  const int nt = ic->nthermo;
  int any_region = 0;
  for (int ii = 0; ii < nt; ii++) any_region |= ic->thermo_region[ii];
  for (int i = 0; i < *ncp; i++) {
    bl_component *q = &cp[i];
    int named = 0;
    for (int ii = 0; ii < nt; ii++) {
      if (ic->thermo_region[ii] || d->thermodynamic_value[ii] - 1 != q->mat) continue; /* MATERIAL entries */
      named = 1;
      q->density = d->density[ii], q->energy = d->energy[ii];
      const double v = q->fr * vol;
      if (ic->thermo_scale[ii] == BL_SCALE_VOLUME) q->energy /= v;
      else if (ic->thermo_scale[ii] == BL_SCALE_MASS) q->energy /= d->density[ii] * v;
    }
    if (!named && any_region) {
      if (ic->material_kind[q->mat] != BL_IND_BACKGROUND && ic->material_kind[q->mat] != BL_IND_REGION)
        return bl_ferr(d, "thermodynamic_type", err, errlen, "material %d (%s), a component of mixed element %lld, "
                       "has no MATERIAL initial condition and is not a BACKGROUND or REGION material (whose "
                       "components take the cell's): add a MATERIAL entry for it", q->mat + 1,
                       d->material_name[q->mat], e + 1);
      q->density = *density, q->energy = *energy;
    }
    if (!(q->density > 0.0) || !(q->energy >= 0.0))
      return bl_ferr(d, "density", err, errlen, "component %d (material %d, %s) of mixed element %lld has density %g "
                     "and energy %g: each component needs a density > 0 and an energy >= 0 (a MATERIAL initial "
                     "condition)", i + 1, q->mat + 1, d->material_name[q->mat], e + 1, q->density, q->energy);
  }
  return UM_SUCCESS;
}

void bl_node_velocity(const bl_deck *d, const bl_ic *ic, double x, double y, int type, double *u, double *v) {
  *u = *v = 0.0;
  for (int ii = 0; ii < ic->nkin; ii++) {
    const double *p = d->kinematic_param[ii];
    if (ic->kin_radial[ii]) {
      const double rv = 1.0 / sqrt((x - p[1]) * (x - p[1]) + (y - p[2]) * (y - p[2]));
      *u = p[0] * x * rv;
      *v = p[0] * y * rv;
    } else {
      *u = p[0];
      *v = p[1];
    }
  }
  const double w1 = d->accut * d->accut;
  if (type == -1 || type == -3) *u = 0.0;
  if (type == -2 || type == -3) *v = 0.0;
  if (*u * *u + *v * *v < w1) *u = *v = 0.0;
}

int bl_corner_wall(const int type[4], int c) {
  int nneg = 0;
  for (int k = 0; k < 4; k++) nneg += type[k] < 0;
  if (nneg != 3) return 0;
  int ii = 0;
  for (; ii < 4; ii++)
    if (type[ii] > 0) break;
  ii = (ii + 2) % 4;
  if (ii != c) return 0;
  const int j1 = type[(ii + 1) % 4], j2 = type[(ii + 3) % 4];
  return (j1 == -2 && j2 == -1) || (j2 == -2 && j1 == -1) ? -3 : 0;
}

/* ---- a block of a regular mesh ------------------------------------------------------------------------------- */

int bl_mesh_counts(const bl_deck *d, long long *nel, long long *nnd, char *err, size_t errlen) {
  bl_grid g;
  bl_relax p;
  const int rc = bl_grid_sides(d, 1, &g, &p, err, errlen);
  *nel = (long long)(g.nl - 1) * (g.nk - 1);
  *nnd = (long long)g.nl * g.nk;
  bl_grid_free(&g);
  return rc;
}

void bl_block_free(bl_block *b) {
  if (!b) return;
  void *a[] = {b->elnd, b->elel, b->elfc, b->elreg, b->elmat, b->density, b->energy, b->cx, b->cy, b->ctype,
               b->visc, b->indtype, b->x, b->y, b->u, b->v, b->ndel, b->ndcorner};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) free(a[i]);
  memset(b, 0, sizeof *b);
}

/* A node's type before upstream's corner rule: 1 inside, minus its side's boundary type on the boundary. */
static int base_type(const bl_grid *g, long long n) {
  const int ll = (int)(n % g->nl) + 1, kk = (int)(n / g->nl) + 1;
  if (ll > 1 && ll < g->nl && kk > 1 && kk < g->nk) return 1;
  const size_t i = kk == 1 ? (size_t)(ll - 1) : kk == g->nk ? (size_t)g->nl + (size_t)(ll - 1)
                                                            : 2 * (size_t)g->nl + 2 * (size_t)(kk - 2) + (ll != 1);
  return -g->bc[i];
}

/* Node n's elements in increasing order (up to 4; returns how many). */
static int node_elements(int nl, int nk, long long n, long long el[4]) {
  const long long ll = n % nl + 1, kk = n / nl + 1;
  int k = 0;
  for (int dk = -1; dk <= 0; dk++)
    for (int dl = -1; dl <= 0; dl++) {
      const long long l = ll + dl, m = kk + dk; /* the element (l, m), 1-based */
      if (l >= 1 && l <= nl - 1 && m >= 1 && m <= nk - 1) el[k++] = (l - 1) + (m - 1) * (nl - 1);
    }
  return k;
}

/* A node's type after the corner rule: each of its elements (in order) may make it a wall. */
static int node_type(const bl_grid *g, int orient, long long n) {
  int t = base_type(g, n);
  long long el[4], nd[4];
  const int ne = node_elements(g->nl, g->nk, n, el);
  for (int i = 0; i < ne; i++) {
    bl_element_nodes(g->nl, orient, el[i], nd);
    int type[4];
    for (int k = 0; k < 4; k++) type[k] = base_type(g, nd[k]);
    for (int k = 0; k < 4; k++)
      if (nd[k] == n && bl_corner_wall(type, k)) t = bl_corner_wall(type, k);
  }
  return t;
}

void bl_element_neighbour(int nl, int nk, int orient, long long e, int f, long long *el, int *fc) {
  /* face f's step to the adjacent element (l, m: the element's column and row): bl_element_nodes' corners go round
   * from (l, m) along l first (orient 1) or along m first (0); the neighbour's face back is always f + 2 */
  static const int step[2][4][2] = {{{-1, 0}, {0, 1}, {1, 0}, {0, -1}}, {{0, -1}, {1, 0}, {0, 1}, {-1, 0}}};
  const long long l = e % (nl - 1), m = e / (nl - 1);
  const long long l2 = l + step[orient != 0][f][0], m2 = m + step[orient != 0][f][1];
  const int inside = l2 >= 0 && l2 < nl - 1 && m2 >= 0 && m2 < nk - 1;
  *el = inside ? l2 + m2 * (nl - 1) : e;
  *fc = (f + 2) % 4;
}

int bl_block_alloc(bl_block *b, int what) {
  const int visc = what & BL_BLOCK_VISC, ndel = what & BL_BLOCK_NODE_ELEMENTS;
  const size_t ne = (size_t)b->count[0] + 1, nn = (size_t)b->count[1] + 1;
  b->elnd = malloc(sizeof(long long) * 4 * ne), b->elel = malloc(sizeof(long long) * 4 * ne);
  b->elfc = malloc(sizeof(int) * 4 * ne), b->elreg = malloc(sizeof(int) * ne), b->elmat = malloc(sizeof(int) * ne);
  b->density = malloc(sizeof(double) * ne), b->energy = malloc(sizeof(double) * ne);
  b->cx = malloc(sizeof(double) * 4 * ne), b->cy = malloc(sizeof(double) * 4 * ne);
  b->ctype = malloc(sizeof(int) * 4 * ne);
  b->visc = visc ? malloc(sizeof(long long) * 8 * ne) : NULL;
  b->indtype = malloc(sizeof(int) * nn), b->x = malloc(sizeof(double) * nn), b->y = malloc(sizeof(double) * nn);
  b->u = malloc(sizeof(double) * nn), b->v = malloc(sizeof(double) * nn);
  b->ndel = ndel ? malloc(sizeof(long long) * 4 * nn) : NULL, b->ndcorner = ndel ? malloc(sizeof(int) * 4 * nn) : NULL;
  return b->elnd && b->elel && b->elfc && b->elreg && b->elmat && b->density && b->energy && b->cx && b->cy &&
                 b->ctype && (b->visc || !visc) && b->indtype && b->x && b->y && b->u && b->v &&
                 (b->ndel || !ndel) && (b->ndcorner || !ndel)
             ? UM_SUCCESS
             : UM_ERR_ALLOC;
}

/* The block's nodes: position, type, velocity, elements (the gather scheme's node -> element map). */
static void block_nodes(const bl_deck *d, const bl_ic *ic, const bl_grid *g, const bl_relax *p, int orient,
                        bl_block *b) {
  for (int i = 0; i < b->count[1]; i++) {
    const long long n = b->first[1] + i;
    const int ll = (int)(n % g->nl) + 1, kk = (int)(n / g->nl) + 1;
    bl_grid_point(g, p, ll, kk, &b->y[i], &b->x[i]);
    b->indtype[i] = node_type(g, orient, n);
    bl_node_velocity(d, ic, b->x[i], b->y[i], b->indtype[i], &b->u[i], &b->v[i]);
    if (!b->ndel) continue;
    long long el[4] = {0, 0, 0, 0}, nd[4];
    const int ne = node_elements(g->nl, g->nk, n, el);
    for (int s = 0; s < 4; s++) {
      b->ndel[4 * (size_t)i + s] = el[s < ne ? s : 0];
      b->ndcorner[4 * (size_t)i + s] = -1;
      if (s >= ne) continue;
      bl_element_nodes(g->nl, orient, el[s], nd);
      for (int k = 0; k < 4; k++)
        if (nd[k] == n) b->ndcorner[4 * (size_t)i + s] = k;
    }
  }
}

/* The block's elements: nodes, neighbours, corners, state, and (visc) the far corners across each face. */
static int block_elements(const bl_deck *d, const bl_grid *g, const bl_relax *p, const bl_ic *ic, int orient,
                          bl_block *b, char *err, size_t errlen) {
  const int nl = g->nl, nk = g->nk;
  for (int i = 0; i < b->count[0]; i++) {
    const long long e = b->first[0] + i;
    long long *nd = b->elnd + 4 * (size_t)i;
    bl_element_nodes(nl, orient, e, nd);
    double *cx = b->cx + 4 * (size_t)i, *cy = b->cy + 4 * (size_t)i;
    for (int k = 0; k < 4; k++) {
      bl_grid_point(g, p, (int)(nd[k] % nl) + 1, (int)(nd[k] / nl) + 1, &cy[k], &cx[k]);
      b->ctype[4 * (size_t)i + k] = node_type(g, orient, nd[k]);
    }
    for (int f = 0; f < 4; f++) {
      bl_element_neighbour(nl, nk, orient, e, f, &b->elel[4 * (size_t)i + f], &b->elfc[4 * (size_t)i + f]);
      if (!b->visc) continue;
      long long o[4];
      const int c = b->elfc[4 * (size_t)i + f];
      bl_element_nodes(nl, orient, b->elel[4 * (size_t)i + f], o);
      b->visc[8 * (size_t)i + 2 * f] = o[(c + 2) % 4], b->visc[8 * (size_t)i + 2 * f + 1] = o[(c + 3) % 4];
    }
    TRY(bl_element_state(d, ic, e, cx, cy, &b->elreg[i], &b->elmat[i], &b->density[i], &b->energy[i], err, errlen));
  }
  return UM_SUCCESS;
}

/* The block's checks: its nodes' boundary types defined (the whole ring's: every rank says the same), and no
 * interior node of it that the relaxation would move (else b->regular = 0). */
static int block_checks(const bl_deck *d, const bl_grid *g, const bl_relax *p, bl_block *b, char *err, size_t errlen) {
  const size_t nring = 2 * (size_t)g->nl + 2 * (size_t)(g->nk - 2);
  for (size_t i = 0; i < nring; i++)
    if (g->bc[i] <= 0) return bl_ferr(d, "segment_bc", err, errlen, "undefined boundary type at a region edge");
  b->regular = 1;
  for (int i = 0; i < b->count[1] && b->regular; i++) {
    const long long n = b->first[1] + i;
    const int ll = (int)(n % g->nl) + 1, kk = (int)(n / g->nl) + 1;
    if (ll > 1 && ll < g->nl && kk > 1 && kk < g->nk && bl_grid_moves(g, p, ll, kk)) b->regular = 0;
  }
  return UM_SUCCESS;
}

int bl_block_build(const bl_deck *d, const long long first[2], const long long count[2], int what, bl_block *b,
                   char *err, size_t errlen) {
  memset(b, 0, sizeof *b);
  bl_grid g;
  bl_relax p;
  bl_ic ic;
  int rc = bl_grid_sides(d, 1, &g, &p, err, errlen);
  if (!rc) {
    b->nel = (long long)(g.nl - 1) * (g.nk - 1), b->nnd = (long long)g.nl * g.nk;
    const long long gsize[2] = {b->nel, b->nnd};
    for (int s = 0; s < 2 && !rc; s++) {
      if (first[s] < 0 || count[s] < 0 || count[s] > 2147483647LL || first[s] + count[s] > gsize[s])
        rc = um_format_error(err, errlen, UM_ERR_ARG, "the block [%lld, %lld) of the %s is not in [0, %lld)", first[s],
                             first[s] + count[s], s ? "nodes" : "elements", gsize[s]);
      b->first[s] = first[s], b->count[s] = (int)count[s];
    }
  }
  if (!rc) rc = bl_ic_prepare(d, b->nel, &ic, err, errlen);
  if (!rc) rc = block_checks(d, &g, &p, b, err, errlen);
  if (!rc && b->regular) {
    b->nreg = ic.nreg, b->nmat = ic.nmat;
    memcpy(b->region_name, ic.region_name, sizeof b->region_name);
    memcpy(b->material_name, ic.material_name, sizeof b->material_name);
    const int orient = bl_grid_orientation(&g, &p);
    if (bl_block_alloc(b, what)) rc = um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory for a block of the mesh");
    if (!rc) block_nodes(d, &ic, &g, &p, orient, b);
    if (!rc) rc = block_elements(d, &g, &p, &ic, orient, b, err, errlen);
  }
  bl_grid_free(&g);
  if (rc || !b->regular) {
    const int regular = b->regular;
    const long long nel = b->nel, nnd = b->nnd;
    bl_block_free(b);
    b->regular = regular, b->nel = nel, b->nnd = nnd;
  }
  return rc;
}
