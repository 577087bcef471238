/* The cl backend: hand-written OpenCL kernels from cl/ on the selected device. Its
 * implementations are in the files beside this one; what it shares with clblast in
 * src/backends/opencl/. */
#include "backends/backends.h"
#include "backends/opencl/opencl_backend.h"
#include "clgauge/program.h"

const cg_backend cg_backend_cl = {
    .name = "cl",
    .summary = "hand-written OpenCL kernels from cl/",
    .needs_device = true,
    .open = cg_cl_backend_open,
    .close = cg_cl_backend_close,
    .open_overlap_ms = cg_cl_backend_open_overlap_ms,
    .driver_cache = cg_driver_cache_state,
};
