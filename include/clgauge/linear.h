/* The linear workload: per-batch SGD training of a linear classifier with softmax cross-entropy,
 * as in the PyTorch DataLoader report, under three ways of getting batches to the device
 * (pageable, pinned, resident), verified against the host reference. */
#ifndef CLGAUGE_LINEAR_H
#define CLGAUGE_LINEAR_H

#include <stdint.h>

#include "clgauge/backend.h"
#include "clgauge/matmul.h"
#include "clgauge/report.h"

enum { CG_LINEAR_MAX_DIM = 1 << 24 };

typedef struct cg_linear_config {
  cg_linear_shape shape;
  int epochs;
  double lr;
  bool transfers[3]; /* indexed by cg_transfer: which of pageable, pinned, resident to run */
  uint64_t seed;
  const char *const *backends;
  const char *const *variants;
  cg_program_store programs;   /* kernel sources and binary cache; zero: embedded, none */
} cg_linear_config;

/* The report's defaults: 10000 x 1000, 10 classes, batch 32, 10 epochs, lr 0.01, pageable. */
void cg_linear_defaults(cg_linear_config *cfg);
/* Parse a --transfer value: pageable, pinned, resident or all. CG_BAD_INPUT otherwise. */
cg_rc cg_linear_parse_transfer(cg_linear_config *cfg, const char *text, cg_error *err);
cg_rc cg_linear_validate(const cg_linear_config *cfg, const cg_device_info *device,
                         cg_error *err);
cg_rc cg_linear_run(const cg_linear_config *cfg, const cg_device_info *device, cg_report *report,
                    cg_progress_fn progress, void *progress_ctx, cg_error *err);

/* The epoch orders: `epochs` permutations of 0..samples-1 from a seeded generator (Fisher-Yates),
 * the same for every backend. Returns a malloc'd epochs x samples array, or NULL. */
int *cg_linear_orders(int samples, int epochs, uint64_t seed);

#endif
