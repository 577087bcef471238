/* The clblast backend: CLBlast on the selected OpenCL device, with small kernels of cl/ for
 * what CLBlast lacks. Its implementations are in the files beside this one. */
#include "backends/backends.h"
#include "backends/opencl/opencl_backend.h"
#include "clgauge/program.h"

const cg_backend cg_backend_clblast = {
    .name = "clblast",
    .summary = "CLBlast on the OpenCL device",
    .needs_device = true,
    .open = cg_cl_backend_open,
    .close = cg_cl_backend_close,
    .open_overlap_ms = cg_cl_backend_open_overlap_ms,
    .driver_cache = cg_driver_cache_state,
};
