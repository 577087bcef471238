/* The mlp workload: the small training loop of the PyTorch report (y = relu(relu(x w1) w2) w3,
 * squared-error loss, SGD on w1 and w2), timed phase by phase on every selected backend and
 * verified against the host reference: the loss at every printed iteration and the final weights. */
#ifndef CLGAUGE_MLP_H
#define CLGAUGE_MLP_H

#include <stdint.h>

#include "clgauge/backend.h"
#include "clgauge/matmul.h"
#include "clgauge/report.h"

enum { CG_MLP_MAX_DIM = 1 << 20 };

typedef struct cg_mlp_config {
  cg_mlp_shape shape;
  int iters;
  double lr;
  bool update_w3;
  int print_every; /* the loss is read back every print_every iterations: one run each */
  uint64_t seed;
  const char *const *backends; /* NULL-terminated names; NULL means every backend */
  const char *const *variants;
  cg_program_store programs;   /* kernel sources and binary cache; zero: embedded, none */
} cg_mlp_config;

/* The seed preset: N=64, Din=1024, H=128, O=8, 10000 iterations, lr 1e-9, loss every 1000. */
void cg_mlp_defaults(cg_mlp_config *cfg);
/* Apply a preset by name: "seed" or "big" (N=64, Din=H=5000, O=8). CG_BAD_INPUT otherwise. */
cg_rc cg_mlp_preset(cg_mlp_config *cfg, const char *name, cg_error *err);

/* Check sizes, counts, names, and that every tensor fits the device's maximum allocation. */
cg_rc cg_mlp_validate(const cg_mlp_config *cfg, const cg_device_info *device, cg_error *err);

/* Run every selected backend and variant, one record each. Failures stay in their records. */
cg_rc cg_mlp_run(const cg_mlp_config *cfg, const cg_device_info *device, cg_report *report,
                 cg_progress_fn progress, void *progress_ctx, cg_error *err);

/* Crossover of one OpenCL backend/variant against the host backend along a sweep: the smallest
 * swept size from which the OpenCL record is faster at every larger size, counting the loop
 * alone (steady time per iteration) and counting everything (init, compile, upload and all runs).
 * A size of 0 means it never wins. */
typedef struct cg_mlp_crossover {
  char backend[16], variant[24];
  int loop_size;
  int total_size;
} cg_mlp_crossover;
/* Fills at most max entries from the mlp records of a sweep report; returns the count. */
int cg_mlp_crossovers(const cg_report *report, cg_mlp_crossover *out, int max);

#endif
