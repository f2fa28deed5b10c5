/* BookLeaf on um: the deck (BookLeaf_F90's Fortran namelist input), the mesh
 * generator and the initial state, shared by bookleaf.c, deck.c, mesh.c, the
 * tests and the fuzz harness. */
#ifndef BOOKLEAF_H
#define BOOKLEAF_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BL_LN 100      /* entries per namelist array (upstream's LN and LI)      */
#define BL_SLEN 32     /* characters kept of a string entry                      */
#define BL_NEOS 6      /* parameters of one equation of state                    */
#define BL_MAXREG 16   /* regions and materials the solver supports              */

/* Node types (upstream's indtype): > 0 interior (its region), < 0 on a boundary. */
enum { BL_SLIPX = 1, BL_SLIPY = 2, BL_WALL = 3, BL_TRANS = 6, BL_OPEN = 7, BL_FREE = 8 };
/* Segment types. */
enum { BL_LINE = 1, BL_ARC_C = 2, BL_ARC_A = 3, BL_POINT = 4, BL_LINK = 5 };

/* The namelists as read: every array has upstream's extents and defaults.
 * lines[] holds, per variable of the table in deck.c, the line of the last
 * assignment to it (0: never set), and entry_lines[] the same per entry of an
 * array (its first dimension of BL_LN: the segment of segment_pos(segment, :),
 * the material of eos_param(:, material)), so later checks can name where a
 * value came from. */
typedef struct {
  /* &CONTROL */
  double time_start, time_end, dt_initial, dt_g, dt_min, dt_max, cfl_sf, div_sf, cvisc1, cvisc2;
  double kappaall, pmeritall, kappareg[BL_LN], pmeritreg[BL_LN];
  int zdtnotreg[BL_LN], zmidlength[BL_LN];
  char visc[BL_SLEN];
  /* &CUTOFF */
  double ccut, zcut, zerocut, pcut, dencut, accut;
  /* &EOS: eos_param(param, material) */
  char eos_type[BL_LN][BL_SLEN];
  double eos_param[BL_LN][BL_NEOS];
  /* &MESH: region_dim(region, 1..2), region_side(region, side, 1 + segments),
   * segment_pos(segment, 1..8) */
  char region_typ[BL_LN][BL_SLEN];
  int region_dim[2][BL_LN];
  int region_side[BL_LN][4][BL_LN]; /* [k][j][i] holds region_side(i, j, k) */
  int region_material[BL_LN];
  double region_om[BL_LN], region_tol[BL_LN];
  char segment_typ[BL_LN][BL_SLEN], segment_bc[BL_LN][BL_SLEN];
  double segment_pos[8][BL_LN];
  int max_seg, max_subseg;
  /* &INDICATORS */
  char region_type[BL_LN][BL_SLEN], region_name[BL_LN][BL_SLEN];
  char material_type[BL_LN][BL_SLEN], material_name[BL_LN][BL_SLEN];
  int region_value[BL_LN], material_value[BL_LN];
  /* &INITIAL_CONDITIONS: kinematic_param(1..3, entry) */
  char thermodynamic_type[BL_LN][BL_SLEN], thermodynamic_energy_scale[BL_LN][BL_SLEN];
  char kinematic_type[BL_LN][BL_SLEN], kinematic_geometry[BL_LN][BL_SLEN];
  int thermodynamic_value[BL_LN], kinematic_value[BL_LN];
  double density[BL_LN], energy[BL_LN], kinematic_param[BL_LN][3];
  /* &SHAPES: shape_param(shape, 1..5) */
  char shape_type[BL_LN][BL_SLEN];
  double shape_param[5][BL_LN];
  /* &ALE */
  int zeul, npatch;
  double ale_sf;
  int adv_type;
  /* where each variable, and each entry of an array, was last set (see bl_deck_line, bl_deck_entry_line) */
  int lines[96];
  int entry_lines[96][BL_LN];
  char file[512];
} bl_deck;

/* Upstream's defaults for every entry. */
void bl_deck_default(bl_deck *d);
/* Parse namelist text (name: the file name used in messages). Unknown namelists
 * and keys, subscripts out of range, malformed values: UM_ERR_CONFIG and
 * "file:line: key: what". */
int bl_deck_parse(bl_deck *d, const char *text, size_t len, const char *name, char *err, size_t errlen);
/* Read a deck file (bl_deck_default + bl_deck_parse). */
int bl_deck_read(bl_deck *d, const char *path, char *err, size_t errlen);
/* The line where `key` was last assigned (0 if never). */
int bl_deck_line(const bl_deck *d, const char *key);
/* The line of the last value the deck set in entry `entry` (1-based) of array `key`: segment_pos(entry, :),
 * eos_type(entry), eos_param(:, entry) (the array's first dimension of BL_LN); 0 if none. */
int bl_deck_entry_line(const bl_deck *d, const char *key, int entry);
/* The values that must be >= 0 (> 0 where 0 makes every dt 0), and dt_min no larger than dt_max and dt_initial (the
 * first step would stop the run), checked after the params.* overrides: 0, or UM_ERR_CONFIG with "file:line: ..." in
 * err. */
int bl_deck_check_values(const bl_deck *d, const char *file, char *err, size_t errlen);

/* A region of the mesh as upstream's generator builds it. */
typedef struct {
  int typ;             /* 1 LIN1, 2 LIN2, 3 EQUI, 4 USER   */
  int nl, nk;          /* nodes along l (deck's 2nd dim + 1) and k (1st + 1) */
  int mat;
  int nseg[4], seg[4]; /* one segment per side (the shipped decks)        */
  double tol, om;
} bl_region_mesh;

/* One component of a mixed-material cell: its material (0-based), volume fraction, density and specific
 * internal energy. */
typedef struct {
  int mat;
  double fr, density, energy;
} bl_component;

/* The generated mesh and initial state, in upstream's serial numbering. */
typedef struct {
  int nel, nnd, nreg, nmat;
  int *elnd;      /* 4 per element, 0-based nodes, counter-clockwise   */
  int *elel;      /* 4 per element: neighbour across face f (self on a boundary) */
  int *elfc;      /* 4 per element: the neighbour's face that faces back (0-based) */
  int *elreg, *elmat; /* 0-based */
  int *indtype;   /* per node: > 0 interior, -1 slip x, -2 slip y, -3 wall, -8 free ... */
  double *x, *y, *u, *v; /* x's block holds x then y (y = x + nnd), u's u then v: freed with x and u */
  double *density, *energy;
  char region_name[BL_MAXREG][BL_SLEN], material_name[BL_MAXREG][BL_SLEN];
  /* mixed-material cells (elmat -1): nmx cells mxel[i] (0-based, increasing), cell i's components
   * cp[mxfirst[i] .. mxfirst[i + 1]) in upstream's order (the material the cell had first, then the shapes') */
  int nmx, ncp;
  int *mxel, *mxfirst;
  bl_component *cp;
} bl_mesh;

/* Build the mesh, the regions, materials and initial conditions of a deck
 * (upstream's setup_mesh, init_dr_mesh and setup_IC, serial). Errors name
 * the deck's file, line and key. */
int bl_mesh_build(const bl_deck *d, bl_mesh *m, char *err, size_t errlen);
/* The same over nthreads threads (OpenMP: the elements' nodes and states, the nodes' velocities): the same mesh, bit
 * for bit, for any count, and the same first error. */
int bl_mesh_build_threads(const bl_deck *d, int nthreads, bl_mesh *m, char *err, size_t errlen);
void bl_mesh_free(bl_mesh *m);
/* The whole mesh's elements and nodes (0), or the deck's error. */
int bl_mesh_counts(const bl_deck *d, long long *nel, long long *nnd, char *err, size_t errlen);

/* One block of bl_mesh_build's mesh, for a rank that declares its mesh by blocks: the elements
 * [first[0], first[0] + count[0]) and nodes [first[1], first[1] + count[1]), with the same values (bits) as
 * those rows of the whole mesh and the map targets in global (long long) numbers. Only a regular mesh can be
 * made so (one whose relaxation moves no point of its transfinite start: the shipped Sod, Sedov and blast
 * decks): where it moves a node of this block, regular is 0 and nothing else is filled (the ranks agree, and
 * make the whole mesh). Every row is computed alone from the region's sides: the block costs its own rows and
 * the sides, never the whole mesh. */
typedef struct {
  long long nel, nnd;                 /* the whole mesh's */
  long long first[2];                 /* this block's first element and node */
  int count[2];                       /* and how many */
  int regular, nreg, nmat;
  char region_name[BL_MAXREG][BL_SLEN], material_name[BL_MAXREG][BL_SLEN];
  long long *elnd, *elel;             /* 4 per element */
  int *elfc, *elreg, *elmat;          /* 4, 1, 1 per element */
  double *density, *energy;           /* per element */
  double *cx, *cy;                    /* 4 per element: its corners' coordinates */
  int *ctype;                         /* 4 per element: its corners' node types */
  long long *visc;                    /* 8 per element (BL_BLOCK_VISC): the far corners across each face (bl_visc) */
  int *indtype;                       /* per node */
  double *x, *y, *u, *v;              /* per node */
  /* 4 per node (BL_BLOCK_NODE_ELEMENTS): its elements in increasing order (the first repeated in an empty slot)
   * and its corner in each (-1 in an empty slot) */
  long long *ndel;
  int *ndcorner;
} bl_block;

/* What bl_block_build makes beside the mesh (`what`, or-ed): the fused viscosity's far corners, the gather
 * scheme's node -> element lists. */
enum { BL_BLOCK_VISC = 1, BL_BLOCK_NODE_ELEMENTS = 2 };
int bl_block_build(const bl_deck *d, const long long first[2], const long long count[2], int what, bl_block *b,
                   char *err, size_t errlen);
void bl_block_free(bl_block *b);

/* Element geometry as upstream: iso-parametric terms, corner weights, volume. */
void bl_geometry(const double *cx, const double *cy, double *a1, double *a3, double *b1, double *b3, double *cnwt,
                 double *vol);

/* The exact Sod solution upstream's check compares with (density at x - 50, time t). */
double bl_sod_density(double x, double t);

#ifdef __cplusplus
}
#endif
#endif
