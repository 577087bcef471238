/* Device-wide barriers inside one persistent kernel (cl/grid_sync.cl), host side: the barrier's
 * state, its failure flag, and the residency check that says whether a launch of a given shape
 * may use them. A persistent launch replaces several launches by barriers that cost far less
 * (about 0.8 us against 5.9 us per launch on an H200), and is safe only when every work-group
 * of the launch is resident at once, which OpenCL does not promise: the check tries, the
 * bounded wait of the barrier catches what it missed, and the caller redoes a failed launch's
 * work with launches. */
#ifndef CLGAUGE_GRID_H
#define CLGAUGE_GRID_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>

#include "clgauge/device.h"
#include "clgauge/error.h"
#include "clgauge/program.h"

/* Polls of a waiting work-group before it gives up (the kernels' `spin` argument): in the real
 * kernels, far more than any wait between balanced phases (each poll is an atomic, hundreds of
 * nanoseconds on a GPU, tens on a CPU); in the discovery launch, whose groups do nothing but
 * arrive, enough for the groups to start. */
enum { CG_GRID_SPIN = 1 << 20, CG_GRID_SPIN_DISCOVER = 1 << 16 };

/* A launch's work-groups: how many, their work-items, and the bytes of local memory each takes
 * (its __local arrays and arguments). */
typedef struct cg_grid_shape {
  size_t groups, local, local_bytes;
} cg_grid_shape;

typedef struct cg_grid_verdict {
  bool resident; /* every group of the shape ran at once in the discovery launch */
  char why[200]; /* one line saying how that was established, or why not */
} cg_grid_verdict;

/* Whether the work-groups of `shape` are resident at once on the device: a launch of
 * cl/grid_discover.cl's grid_discover of that shape (its groups pass one barrier, with the
 * shape's local memory each), remembered per device and shape for the process. A shape beyond
 * the device's or the kernel's limits is not resident, without a launch. The discovery kernel
 * uses fewer registers than most real ones, so a real launch may still find a group missing:
 * its failure flag says so (cg_grid_failed). Never hangs: the barrier's wait is bounded. */
cg_rc cg_grid_residency(const cg_device *dev, const cg_program_store *store, cg_grid_shape shape,
                        cg_grid_verdict *out, cg_error *err);

/* The state of the barriers of one persistent kernel (cl/grid_sync.cl), and the failure flag
 * read back after a launch. */
typedef struct cg_grid {
  cl_mem state;  /* 3 ints, zero */
  cl_int failed; /* read back by cg_grid_read_failure */
} cg_grid;

cg_rc cg_grid_create(const cg_device *dev, cg_grid *g, cg_error *err);
/* Enqueue the read of the failure flag on q (non-blocking): after the queue has finished,
 * cg_grid_failed says whether the launches before it failed. */
cg_rc cg_grid_read_failure(cl_command_queue q, cg_grid *g, cg_error *err);
bool cg_grid_failed(const cg_grid *g);
/* Zero the state again after a failure (blocking), so that the next launch may try. */
cg_rc cg_grid_reset(cl_command_queue q, cg_grid *g, cg_error *err);
/* Zero the state before a launch whose barriers count the arrivals from zero (cg_grid_count in
 * cl/grid_sync.cl), on q before the launch (non-blocking). */
cg_rc cg_grid_rearm(cl_command_queue q, cg_grid *g, cg_error *err);
void cg_grid_release(cg_grid *g);

#endif
