/* Private to src/backends/cl: whether cl/fused runs the mlp's fused kernels (cl/mlp.cl, MLP_FUSED)
 * or the products step for a shape and a device, and the fused kernels' blocking: the rules that
 * choose them, the overrides that replace them, the build options that hand the blocking to the
 * kernels, and the parameters a record names. mlp.c builds and launches the kernels with it. */
#ifndef CLGAUGE_CL_MLP_FUSED_CONFIG_H
#define CLGAUGE_CL_MLP_FUSED_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "backends/opencl/cl_mlp_common.h"

/* How a run of cl/fused trains: the fused kernels, or the products step (the per-op kernels, the
 * large products on the pipelined matmul kernel). */
enum { CG_FUSED_KERNELS, CG_FUSED_PRODUCTS };

/* cl/fused's strategy for shape s on the device: the rule's, or STRATEGY's where `ov` (may be
 * NULL) sets it, `origin` saying which; a value other than 0 or 1 is CG_BAD_INPUT. */
cg_rc cg_fused_strategy(const cg_mlp_shape s, const cg_device_info *info,
                        const cg_kernel_overrides *ov, int *strategy, cg_origin *origin,
                        cg_error *err);

/* Blocking of the fused kernels; the macros of the same names (upper case) in cl/mlp.cl. A split
 * iteration (SPLIT) runs launch A's backward part as a launch G of its own build, with a
 * configuration of its own (part 1) beside launch A's (part 2). */
typedef struct cg_fused_config {
  int part;                         /* launch A's parts in this build: 0 both, 1 G's, 2 A's */
  int split;                        /* launch G before launch A (launch A's configuration) */
  int tx, ty, rm, rn, rm2, kc, tpg; /* launch A: work-items, register blocks, chunk, tiles */
  int vw, vw2;                      /* launch A's vector reads of local memory */
  int pf;                           /* launch A fetches the next chunk while multiplying */
  int stage;                        /* launch A's chunks go through registers (PF needs it) */
  int db;                           /* launch A's chunks in two local buffers (needs STAGE) */
  int fwr, kv;                      /* launch A's forward part takes w1 from registers, KV rows */
  int ur, wpf;                      /* launch A's update: rows at a time; its tile prefetched */
  int col_blocks, rgroups, nch;     /* launch A's grid (col_blocks x rgroups), row chunks */
  int three, dz1a;                  /* a reduce launch R; launch A computes dz1 */
  int wr, rr, rc, rcb, rrb;         /* launch R: work-items, rows, columns, grid rcb x rrb */
  int wgb;                          /* launch B's work-items */
  int brows, brg;                   /* launch B's rows per work-group, its work-groups */
  int bloc;                         /* launch B's local copies: 1 h2 and w3, 2 dy too */
  int pad, ldh; /* rows of w1, h1, dz1 and the partials padded to 128 bytes; their pitch (floats) */
  struct {
    cg_origin tx, ty, r, rn, kc, tpg, vw, pf, stage, db, fwr, ur, wpf, three, dz1a, rc, wgb,
        brows, bloc, pad, split;
  } origin;                         /* of the values the record names */
} cg_fused_config;

/* The padded row pitch of the fused kernels' arrays of hidden-wide rows (w1, h1, dz1, launch A's
 * partials): hidden rounded up to 32 floats, so that each row starts on a 128-byte line. PAD
 * (cg_fused_configure) says whether the rows take it (LDH) or stay hidden floats apart. */
int cg_fused_padded_pitch(int hidden);

/* The most work-items per group each fused launch may take: launch A (and D, whose group is the
 * driver's choice), launch B, launch R and launch G. The device's limit at first; a built
 * kernel's own (CL_KERNEL_WORK_GROUP_SIZE) where it allows fewer. */
typedef struct cg_fused_limits {
  size_t a, b, r, g;
} cg_fused_limits;

/* The blocking within `limits` and `local_mem` bytes of local memory, by the rules and the
 * overrides `ov` (may be NULL): launch A's and the rest in c, and where c->split launch G's in g
 * (else g is zeroed); a bad override is CG_BAD_INPUT, a shape the device cannot take
 * CG_UNSUPPORTED. */
cg_rc cg_fused_configure(const cg_mlp_shape s, const cg_device_info *info,
                         const cg_fused_limits *limits, uint64_t local_mem,
                         const cg_kernel_overrides *ov, cg_fused_config *c, cg_fused_config *g,
                         cg_error *err);

/* The kernels' build options for shape s with blocking c, into out[0..size). */
void cg_fused_build_options(const cg_fused_config *c, const cg_mlp_shape s, char *out,
                            size_t size);

/* The chosen values that a record names, with where each came from: c's, and where c->split
 * launch G's (g) under names of their own (GTX, GTY, GR, GRN, GKC, GUR). */
void cg_fused_record(const cg_fused_config *c, const cg_fused_config *g, cg_kernel_config *config);

#endif
