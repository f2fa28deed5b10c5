/* miniAero on um: inputs, the generated mesh, and the solver's entry points. */
#ifndef MINIAERO_H
#define MINIAERO_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { MA_SOD = 0, MA_FLAT_PLATE = 1, MA_RAMP = 2 } ma_problem;

/* Boundary-condition kinds; one face set each. */
typedef enum { MA_BC_EXTRAPOLATE = 0, MA_BC_TANGENT = 1, MA_BC_INFLOW = 2, MA_BC_NOSLIP = 3, MA_NBC = 4 } ma_bc_kind;

/* Everything upstream's miniaero.inp holds, in its order. */
typedef struct {
  int problem;            /* ma_problem                                   */
  double lx, ly, lz;      /* domain lengths                               */
  double angle;           /* ramp angle in degrees (ramp problem)         */
  int nx, ny, nz;         /* cells per direction                          */
  int steps;              /* time steps                                   */
  double dt;              /* fixed time step                              */
  int output_results;     /* write the results file                      */
  int output_frequency;   /* print a line every this many steps           */
  int second_order;       /* Green-Gauss gradients + Venkatakrishnan      */
  int viscous;            /* Newtonian viscous fluxes                     */
} ma_inputs;

/* Upstream's defaults (Options' constructor). */
void ma_inputs_default(ma_inputs *in);

/* Read a miniaero.inp deck: nine entries separated by white space (problem,
 * lx ly lz angle, nx ny nz, steps, dt, output_results, output_frequency,
 * second_order, viscous), as upstream reads them. Anything after the ninth
 * entry is ignored, as upstream does. Errors name the file, the line and the
 * entry ("miniaero.inp:3: nz: expected an integer, got '4.5'"). */
int ma_inputs_read(const char *path, ma_inputs *in, char *err, size_t errlen);
/* Same from text (origin stands for the file name in messages). */
int ma_inputs_parse(const char *text, const char *origin, ma_inputs *in, char *err, size_t errlen);
/* Check ranges (cells >= 1, dt > 0, lengths > 0, each cell width in [1e-30, 1e30], the three
 * switches 0 or 1, known problem, ...);
 * `where` prefixes the message (a file name or "params"). */
int ma_inputs_check(const ma_inputs *in, const char *where, char *err, size_t errlen);

const char *ma_problem_name(int problem); /* "sod", "flat_plate", "ramp" */
const char *ma_bc_name(int kind);         /* "extrapolate", "tangent", "inflow", "noslip" */

/* The generated mesh, numbered as upstream numbers it on one rank: cells
 * c = (i*ny + j)*nz + k; a cell's local faces 0..5 are -y, +x, +y, -x, -z, +z
 * (upstream's hex8 face order); faces are created in (cell, local face) order,
 * each by the first cell that has it, whose local face gives the area vector's
 * orientation (out of that cell). A slot is (cell, local face): c*6 + f. */
typedef struct {
  int n;            /* faces                                 */
  int *cell;        /* n * arity: left (creating) cell first */
  int *slot;        /* n * arity                             */
  double *area;     /* n * 3: area vector, out of the left cell */
  double *centre;   /* n * 3                                 */
} ma_faces;

typedef struct {
  int nx, ny, nz, ncells;
  double *centre;      /* ncells * 3: mean of the 8 nodes                  */
  double *volume;      /* ncells: 2x2x2 Gauss quadrature of det J          */
  int *neighbour;      /* ncells * 6: the cell across each local face, or the cell itself on the boundary */
  double *face_centre; /* ncells * 18: the centre of each local face        */
  double *face_area;   /* ncells * 18: each local face's area vector, out of the cell */
  ma_faces interior;   /* arity 2                                          */
  ma_faces bc[MA_NBC]; /* arity 1, by kind; upstream's group order within a kind */
} ma_mesh;

/* Node (i, j, k) of the grid, 0 <= i <= nx, ...: the box, its upper half bent by the ramp. */
void ma_node_position(const ma_inputs *in, int i, int j, int k, double *x);

int ma_mesh_build(const ma_inputs *in, ma_mesh *m, char *err, size_t errlen);
/* The same over nthreads threads (OpenMP; by planes of i): the same mesh, bit for bit, for any count. */
int ma_mesh_build_threads(const ma_inputs *in, int nthreads, ma_mesh *m, char *err, size_t errlen);
void ma_mesh_free(ma_mesh *m);

/* The sets of the generated mesh, in the order of ma_mesh_counts: cells, interior faces, then the boundary faces
 * of each kind (ma_bc_kind; a kind the problem lacks has 0). */
enum { MA_SET_CELLS = 0, MA_SET_FACES = 1, MA_SET_BC = 2, MA_NSETS = 2 + MA_NBC };
/* The whole mesh's count of each set (0), or a ma_inputs_check error (its message in err). */
int ma_mesh_counts(const ma_inputs *in, long long gsize[MA_NSETS], char *err, size_t errlen);

/* One block of ma_mesh_build's mesh, for a rank that declares its mesh by blocks: the rows
 * [first[s], first[s] + count[s]) of every set s, with the same values (bits) as those rows of the whole mesh
 * and the map targets in global (long long) numbers (cells; a slot is 6 * cell + local face). Every row is
 * computed alone from the inputs (its cell's nodes and, for a face a neighbour created, the neighbour's):
 * the block costs its own rows, never the whole mesh. */
typedef struct {
  int n;
  long long *cell, *slot; /* n * arity (2 interior, 1 boundary) */
  double *area, *centre;  /* n * 3                              */
} ma_block_faces;

typedef struct {
  long long gsize[MA_NSETS], first[MA_NSETS];
  int count[MA_NSETS];
  double *centre, *volume, *face_centre, *face_area; /* count[cells] rows, as ma_mesh's */
  long long *neighbour;                              /* count[cells] * 6 */
  ma_block_faces faces[MA_NSETS - 1];                /* [0] interior, [1 + kind] boundary */
} ma_block;

int ma_block_build(const ma_inputs *in, const long long first[MA_NSETS], const long long count[MA_NSETS], ma_block *b,
                   char *err, size_t errlen);
void ma_block_free(ma_block *b);

#ifdef __cplusplus
}
#endif
#endif
