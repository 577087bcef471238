/* Private to src/backends/cl: the choice every persistent path of the cl backend makes (a kernel
 * that runs many steps in one launch with device-wide barriers, cl/grid_sync.cl): whether to try
 * it (PERSIST), with how many work-groups (PGROUPS), and whether they are resident at once, with
 * the record's path saying which path runs and why. */
#ifndef CLGAUGE_CL_PERSISTENT_H
#define CLGAUGE_CL_PERSISTENT_H

#include <stdbool.h>

#include "backends/opencl/opencl_backend.h"
#include "clgauge/grid.h"

typedef struct cg_cl_persist_plan {
  bool on;            /* the persistent path runs */
  int groups;         /* its work-groups */
  cg_origin origin;   /* of PERSIST */
  cg_origin groups_origin;
  bool unchecked;     /* PERSIST=2: no residency check (tests of the run-time fallback) */
  int spin;           /* SPIN: polls of a waiting group before its barrier gives up */
  cg_origin spin_origin;
} cg_cl_persist_plan;

/* The first half of the choice: PERSIST (0: launches; 1: persistent where the work-groups are
 * resident; 2: persistent without the residency check, so that a failing launch and its redo
 * can be tested), PGROUPS (default `groups`, refused below 1) and SPIN (default CG_GRID_SPIN,
 * refused below 1; fewer polls make a test of a failing barrier quick). PERSIST defaults to 1
 * on a GPU when `gpu_default` (the caller's persistent path measured faster than its launches
 * there), else to 0; on a CPU always to 0: a work-group spinning at a barrier holds a thread
 * that the others may need, so barriers cost more than launches there. When PERSIST is 0 the
 * path is decided (launches, config says so) and plan->on stays false; else call
 * cg_cl_persist_check once the kernel is built. */
cg_rc cg_cl_persist_want(const cg_backend_env *env, int groups, bool gpu_default,
                         cg_kernel_config *config, cg_cl_persist_plan *plan, bool *want,
                         cg_error *err);
/* The second half: the residency of plan->groups x `local` with `local_bytes` of local memory
 * each (cg_grid_residency), unless the shape cannot take the persistent kernel at all (`fits`
 * false, `why` saying why). plan->on when the persistent path runs; config->path says what runs
 * and why (`what` names the persistent path, e.g. "one launch per epoch"), config gets PERSIST
 * and PGROUPS, and SPIN where it was set. */
cg_rc cg_cl_persist_check(const cg_backend_env *env, const char *what, size_t local,
                          size_t local_bytes, bool fits, const char *why,
                          cg_kernel_config *config, cg_cl_persist_plan *plan, cg_error *err);

/* WG_PERSIST, the work-items per group of a persistent kernel, asked for before its build (which
 * sizes the kernel by them): `want` by default, within the device's limit (its power of two at
 * most, where `pow2`), or the override, refused below 1,
 * above the device's limit or, where `pow2`, other than a power of two. */
cg_rc cg_cl_persist_ask_local(const cg_backend_env *env, size_t want, bool pow2, size_t *asked,
                              cg_origin *origin, cg_error *err);
/* After the build: the work-items that run, `asked` where the kernel `name` (k) takes them, else
 * the most it takes (a power of two where `pow2`; *origin then a fallback); an override beyond
 * the kernel's own limit refused. */
cg_rc cg_cl_persist_fit_local(const cg_device_info *info, cl_kernel k, const char *name,
                              size_t asked, bool pow2, size_t *local, cg_origin *origin,
                              cg_error *err);

/* Zero a buffer of a persistent kernel once (blocking). Its kernels write every element before
 * they read it, but Oclgrind 21.10 takes an element that a work-item wrote and then read back in
 * the same launch for uninitialised unless the host wrote the buffer first (seen with one
 * work-group, whose barriers pass alone; the values read were right). */
cg_rc cg_cl_persist_zero(cl_command_queue q, cl_mem buf, size_t bytes, cg_error *err);

/* The record's path after a persistent launch failed at run time, redone with launches. */
extern const char cg_cl_persist_failed_path[];

#endif
