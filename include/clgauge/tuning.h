/* The tuning file: the best setting of a hand-written kernel's build-time parameters per device,
 * driver, workload, backend, variant and size class (and, where the implementation's own choice
 * follows the shape, per choice it replaced), as clgauge tune found it (tune.h). The engine
 * applies a matching entry as kernel overrides of origin "tuned"; --kernel-param still wins, and
 * --no-tuned runs the defaults. */
#ifndef CLGAUGE_TUNING_H
#define CLGAUGE_TUNING_H

#include <stdbool.h>
#include <stddef.h>

#include "clgauge/device.h"
#include "clgauge/error.h"
#include "clgauge/kernel_config.h"

#define CG_TUNING_SCHEMA "clgauge.tuning/1"

/* The size class of a job: FLOPs per iteration in steps of 4x (2 * 1000^3 FLOPs, matmul at
 * n = 1000, is class 15; n = 1024 and 1290 too; n = 1291 is 16). A tuned setting serves the
 * jobs of its class, where the best parameters tend to agree, and not the others. */
int cg_size_class(double flops_per_iter);

typedef struct cg_tuning_entry {
  char device[256], platform[128], driver[128]; /* the key's device part, as the driver says */
  char workload[16], backend[16], variant[24];
  int size_class;
  char shape[256];      /* the parameters of the job that was tuned, for people: "n=1000,..." */
  cg_kernel_overrides params; /* the best setting (origins TUNED) */
  /* The implementation's own choice at `shape` (the searched parameters the defaults ran with,
   * not those the device made smaller; origins TUNED), recorded where that choice follows the
   * shape (cg_impl.own_choice; else empty, as in files that do not record it): the entry then
   * serves only the shapes where the implementation would choose the same. */
  cg_kernel_overrides replaces;
  double best_ms;       /* its steady time per iteration when tuned */
  double default_ms;    /* the defaults' in the same search; NAN when they failed */
  int candidates;       /* settings tried */
  char date[32];        /* UTC, ISO 8601 */
} cg_tuning_entry;

typedef struct cg_tuning {
  cg_tuning_entry *entries;
  int count, capacity;
} cg_tuning;

/* Read a tuning file; a missing file is an empty tuning (CG_OK). CG_BAD_INPUT names the path and
 * what is wrong with a file that is not one (malformed, another schema, a bad entry). */
cg_rc cg_tuning_load(const char *path, cg_tuning *t, cg_error *err);
/* Write it whole or not at all. */
cg_rc cg_tuning_save(const char *path, const cg_tuning *t, cg_error *err);
void cg_tuning_free(cg_tuning *t);
/* Whether an entry's `replaces` agrees with an implementation's own choice here (cg_impl.
 * own_choice) on every parameter both name; else differs[0..size) (may be NULL) names those that
 * differ: "NWG=64 (here 128)". */
bool cg_tuning_replaces_agree(const cg_kernel_overrides *replaces,
                              const cg_kernel_overrides *own, char *differs, size_t size);
/* The entry for that device, workload, backend, variant and size class whose `replaces` agrees
 * with `own` (NULL: the first entry of that key), or NULL. */
const cg_tuning_entry *cg_tuning_find(const cg_tuning *t, const cg_device_info *device,
                                      const char *workload, const char *backend,
                                      const char *variant, int size_class,
                                      const cg_kernel_overrides *own);
/* Add e, replacing the entry of the same key that replaced the same choice or does not say
 * which (a size class holds one entry per own choice of the implementation at the shapes
 * tuned). CG_ERROR when out of memory. */
cg_rc cg_tuning_put(cg_tuning *t, const cg_tuning_entry *e, cg_error *err);

#endif
