/* Private to src/backends: what the OpenCL backends (clblast, cl) share: opening the device,
 * program builds counted for the compile kind, checked buffers, a run's device time from the
 * span of its events, and the limits of a work-group. */
#ifndef CLGAUGE_OPENCL_BACKEND_H
#define CLGAUGE_OPENCL_BACKEND_H

#include <CL/cl.h>
#include <stdint.h>

#include "clgauge/backend.h"
#include "clgauge/device.h"
#include "clgauge/early.h"
#include "clgauge/events.h"
#include "clgauge/program.h"

/* cg_backend.open and close of the OpenCL backends: a context and a profiling queue. */
cg_rc cg_cl_backend_open(const cg_device_info *info, void **device, const char **no_device_time,
                         cg_error *err);
void cg_cl_backend_close(void *device);
double cg_cl_backend_open_overlap_ms(const void *device);

/* The opened device of an implementation's environment. */
const cg_device *cg_cl_env_device(const cg_backend_env *env);

/* The program builds of one backend instance, counted for its record's compile kind. */
typedef struct cg_build_tally {
  int builds, cached;
} cg_build_tally;

/* The device's loop limit (clgauge/loop_limit.h), measured from env's program store. */
cg_rc cg_backend_loop_limit(const cg_backend_env *env, uint64_t *limit, cg_error *err);

/* Build cl/<name> for env's device through its kernel directory and binary cache, and count the
 * build. */
cg_rc cg_backend_build(const cg_backend_env *env, const char *name, const char *options,
                       cl_program *out, cg_build_tally *tally, cg_error *err);
/* Append one line to what the record says went wrong without failing it (env->warning). */
void cg_backend_warn(const cg_backend_env *env, const char *text);
/* "cache" when every build came from the binary cache, else "source". */
const char *cg_build_tally_kind(const cg_build_tally *tally);

/* A read-write device buffer of `bytes`, refused (CG_UNSUPPORTED) over the device's maximum
 * allocation with a message naming `what`. */
cg_rc cg_cl_buffer(const cg_device *dev, const char *what, size_t bytes, cl_mem_flags flags,
                   cl_mem *out, cg_error *err);
/* Release a buffer and clear the handle (NULL is fine). */
void cg_cl_release_mem(cl_mem *mem);

/* The run's device time from its span into out (device_ms, or device_why); releases the span. */
void cg_cl_span_result(cg_device_span *span, cg_run_result *out);

/* One call of a run: enqueues one iteration's work on the backend's queue; `event` (NULL but on
 * the run's first and last calls) receives the event of the iteration's last command. */
typedef cg_rc (*cg_cl_run_call)(void *state, cl_event *event, cg_error *err);
/* A run of `iters` calls between the events of `span` (released first). With a stamp kernel (an
 * empty one, for a library that hands back only its last kernel's event) the run begins where
 * the stamp ends; without, where the first call's event begins. It ends with the last call's. */
cg_rc cg_cl_run_enqueue(cl_command_queue queue, cl_kernel stamp, int iters, cg_cl_run_call call,
                        void *state, cg_device_span *span, cg_error *err);
/* Waits for the run, then its device time from `span` (released) and its launches into out:
 * `launches` kernel enqueues per iteration, or -1 where a library decides (one library call
 * launches at least one kernel). */
cg_rc cg_cl_run_finish(cl_command_queue queue, cg_device_span *span, int launches,
                       cg_run_result *out, cg_error *err);

/* The largest power of two not above v (v >= 1). */
size_t cg_pow2_floor(size_t v);
/* ceil(a / b), and a rounded up to a multiple of b (b >= 1): grids of whole work-groups. */
size_t cg_ceil_div(size_t a, size_t b);
size_t cg_round_up(size_t a, size_t b);

/* What one work-group may have: work-items in all, in each of the first two dimensions (a device
 * may allow fewer in one dimension than in all: CL_DEVICE_MAX_WORK_ITEM_SIZES), and bytes of
 * local memory. A device's limits, then a built kernel's within them. */
typedef struct cg_cl_group_limits {
  size_t items;
  size_t dim[2];
  uint64_t local_mem;
} cg_cl_group_limits;

/* The limits from the device's answers: CL_DEVICE_MAX_WORK_GROUP_SIZE, MAX_WORK_ITEM_SIZES, and
 * CL_DEVICE_LOCAL_MEM_SIZE, which is no local memory at all where CL_DEVICE_LOCAL_MEM_TYPE is
 * CL_NONE (a custom device); CL_GLOBAL (local memory emulated in global memory, as on the CPU
 * drivers) still bounds what a work-group may declare, so its size counts. */
cg_cl_group_limits cg_cl_limits_of(size_t max_group, const size_t max_items[2],
                                   cl_device_local_mem_type local_type, uint64_t local_size);
cg_rc cg_cl_device_limits(const cg_device_info *info, cg_cl_group_limits *out, cg_error *err);
/* Within a built kernel's own limits too: CL_KERNEL_WORK_GROUP_SIZE (a driver may allow a
 * kernel far fewer work-items than the device: rusticl on llvmpipe, 32), and the local memory
 * left beside the kernel's own (CL_KERNEL_LOCAL_MEM_SIZE: the __local arrays it declares and
 * what the driver adds, before any __local argument is set); *kernel_local gets the latter
 * (may be NULL). */
cg_rc cg_cl_kernel_limits(const cg_device_info *info, cl_kernel kernel, cg_cl_group_limits *limits,
                          uint64_t *kernel_local, cg_error *err);
/* The local memory a kernel's own __local arrays may take on the next build, after a build whose
 * arrays took `declared` bytes and which reported `used` (CL_KERNEL_LOCAL_MEM_SIZE) on a device
 * of `device_local`. What the driver adds is taken as proportional to the arrays: rusticl on
 * llvmpipe reports twice them, and taking the difference as a fixed addition left 4 KiB of 32
 * for arrays that fit in 16. Below `declared` whenever `used` is over `device_local`, so that
 * each rebuild shrinks. */
uint64_t cg_cl_local_for_arrays(uint64_t device_local, uint64_t declared, uint64_t used);
/* The largest power-of-two edge e <= cap of an e x e work-group within the limits (1 at least). */
size_t cg_cl_square_edge(const cg_cl_group_limits *l, size_t cap);
/* The largest power-of-two width w <= cap of a w x 1 work-group within the limits (1 at least). */
size_t cg_cl_row_width(const cg_cl_group_limits *l, size_t cap);

#endif
