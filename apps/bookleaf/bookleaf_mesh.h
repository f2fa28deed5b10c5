/* bookleaf_mesh.h: what BookLeaf's mesh sources share (mesh.c: the whole mesh, upstream's generator;
 * mesh_block.c: the initial state of an element or a node, and a rank's block of a regular mesh): the grid of
 * the single region, the relaxation's settings, and the state of one element or node. */
#ifndef BOOKLEAF_MESH_H
#define BOOKLEAF_MESH_H

#include <stddef.h>
#include "bookleaf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An error of the deck: "file:line: key: message" (UM_ERR_CONFIG). */
int bl_ferr(const bl_deck *d, const char *key, char *err, size_t errlen, const char *fmt, ...);
/* Upper-case copy without leading/trailing blanks; whether s is `name` so. */
void bl_upper(const char *s, char *out, size_t n);
int bl_is(const char *s, const char *name);
/* A material's metric prefix: material_<name> lower case, a run of blanks inside it as one _, no blanks around
 * (material_unnamed for a blank name); n bytes with the NUL (16 + BL_SLEN hold any). */
void bl_material_key(const char *name, char *out, size_t n);
/* A quadrilateral's centroid (upstream's geometry_kn_getcentroid). */
void bl_centroid(const double *x, const double *y, double *c);

/* The region's points (l, k), 1-based, l along the deck's second dimension: the whole grid (column-major), or
 * with ring set only its boundary (rows k = 1 and nk, then the points l = 1 and nl of each row between). */
typedef struct {
  int nl, nk, ring;
  double *rr, *ss; /* rr = y, ss = x */
  int *bc;         /* boundary types (the region's corners from their sides) */
} bl_grid;

/* The relaxation of the interior points (upstream's LIN1 / LIN2 fixed weights rw, sw; EQUI: ep, weights per
 * point) and the side weights of its transfinite start. */
typedef struct {
  int typ, ep;
  double rw[9], sw[9], tol, om, zerocut;
  double tl0, tl1, tk0, tk1;
} bl_relax;

/* The deck's region checked, g allocated (whole, or its ring) and its four sides generated, with the corners'
 * boundary types; p the relaxation's settings. Errors name the deck's file, line and key. */
int bl_grid_sides(const bl_deck *d, int ring, bl_grid *g, bl_relax *p, char *err, size_t errlen);
void bl_grid_free(bl_grid *g);
/* The transfinite start of interior point (ll, kk), from the sides. */
void bl_grid_start(const bl_grid *g, const bl_relax *p, int ll, int kk, double *r, double *s);
/* Point (ll, kk) of a regular grid (one its relaxation moves nowhere): a side's point, or the start. */
void bl_grid_point(const bl_grid *g, const bl_relax *p, int ll, int kk, double *r, double *s);
/* Whether the relaxation's first sweep over the start moves interior point (ll, kk): a grid whose first sweep
 * moves no point is left as it starts (regular: every point computable alone). */
int bl_grid_moves(const bl_grid *g, const bl_relax *p, int ll, int kk);
/* The element corners' order: 1 (counter-clockwise from corner 2 along l) or 0, from the first element. */
int bl_grid_orientation(const bl_grid *g, const bl_relax *p);
/* Element e's four nodes (0-based; upstream's numbering: nodes and elements k outer, l inner). */
void bl_element_nodes(int nl, int orient, long long e, long long nd[4]);
/* The element across face f of element e (bl_element_nodes' corners f, f + 1) of the grid's (nl - 1) x (nk - 1)
 * elements: the adjacent element with that edge, and its face that faces back; on the boundary the element itself
 * and face f + 2 -- the pairs a sort of the faces by their nodes gives (each edge of the grid a side of at most two
 * elements). */
void bl_element_neighbour(int nl, int nk, int orient, long long e, int f, long long *el, int *fc);

/* The deck's regions, materials and initial conditions, checked once (counts, names, the entries' types):
 * then each element's and node's state is computed alone. */
enum { BL_IND_BACKGROUND, BL_IND_CELL, BL_IND_SHAPE, BL_IND_REGION, BL_IND_MESH }; /* an indicator entry's type */
enum { BL_SCALE_NONE, BL_SCALE_VOLUME, BL_SCALE_MASS };                              /* a thermodynamic entry's */
typedef struct {
  int nreg, nmat, rmesh, mmesh, mesh_mat; /* rmesh / mmesh: region / material type MESH (mesh_mat 0-based) */
  long long nel;
  char region_name[BL_MAXREG][BL_SLEN], material_name[BL_MAXREG][BL_SLEN];
  /* the entries' types read once (an element's or node's state reads no string) */
  int region_kind[BL_MAXREG], material_kind[BL_MAXREG], shape_rect[BL_LN];
  int nthermo, thermo_region[BL_LN], thermo_scale[BL_LN]; /* thermo_region: type REGION (else MATERIAL) */
  int nkin, kin_radial[BL_LN];                            /* kin_radial: geometry RADIAL (else PLANAR) */
} bl_ic;

int bl_ic_prepare(const bl_deck *d, long long nel, bl_ic *ic, char *err, size_t errlen);
/* Element e (0-based) with corners (cx, cy): its region, material, density and specific internal energy, as
 * upstream's setup (the last indicator entry that takes it wins); an element in no region or material, or with
 * a density <= 0 or energy < 0, is an error naming it. */
int bl_element_state(const bl_deck *d, const bl_ic *ic, long long e, const double cx[4], const double cy[4],
                     int *reg, int *mat, double *density, double *energy, char *err, size_t errlen);
/* The same for a deck of several materials, as upstream's setup_materials: a material SHAPE takes an element whole
 * when all four corners are inside it, and makes it a mixed cell when some are (the fraction shape_param(5), or
 * upstream's subdivision where that is <= 0). A mixed cell has *mat -1 and its components in cp[0 .. *ncp) (at most
 * BL_MAXREG), each with its density and energy (upstream's thermodynamic IC, then its rationalisation). Where
 * upstream's list would not tile the cell the port decides (a third component takes its fraction from the first; a
 * component of fraction 0 is dropped; docs/apps.md) or refuses with the element and the entry named. */
int bl_element_mixed_state(const bl_deck *d, const bl_ic *ic, long long e, const double cx[4], const double cy[4],
                           int *reg, int *mat, double *density, double *energy, bl_component *cp, int *ncp, char *err,
                           size_t errlen);
/* A node's initial velocity from the kinematic entries and its type (zeroed across slip and wall sides). */
void bl_node_velocity(const bl_deck *d, const bl_ic *ic, double x, double y, int type, double *u, double *v);
/* A node's type after upstream's corner rule (a corner between slip x and slip y sides becomes a wall): `type`
 * the base types of the element's four nodes; returns the new type of corner c, or 0 for no change. */
int bl_corner_wall(const int type[4], int c);

/* A block's arrays for its count[0] elements and count[1] nodes (`what` as bl_block_build's); UM_ERR_ALLOC. */
int bl_block_alloc(bl_block *b, int what);

/* The whole mesh's node -> element lists of params.scheme=gather (4 per node: its elements in increasing order,
 * the first repeated in an empty slot; corner: its corner in each, -1 in an empty slot, 4 per node or, with
 * corner_soa, in 4 columns of nnd): -1, or the first node (0-based) that is a corner of more than 4 elements. */
long long bl_mesh_node_elements(const bl_mesh *m, int *ndel, int *corner, int corner_soa, int nthreads);
/* The whole mesh's far corners of params.visc=fused (8 per element: for face f, the corners b+2 and b+3 of the
 * neighbour across it, b its face that faces back): -1, or 4 e + f of the first face whose neighbour does not share
 * its corners as a conforming mesh does (the same over any nthreads). */
long long bl_mesh_visc_nodes(const bl_mesh *m, int *vn, int nthreads);
/* Collective: rank 0's whole mesh m (generated there alone; NULL elsewhere) sent out by blocks, each rank its
 * rows of every array of a bl_block (`what` as bl_block_build's), the block partitioner's ranges
 * (um/distributed.h: um_mpi_scatter_block). b->regular is set (its rows are filled); the caller frees m once this
 * returns. A failure on any rank (memory, a mesh the gather scheme or the fused viscosity cannot take) is every
 * rank's, with the same message in err. */
int bl_block_scatter(const bl_mesh *m, int what, bl_block *b, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
