/* The clblast backend: CLBlast on the selected OpenCL device, with small kernels of cl/ for
 * what CLBlast lacks. Its implementations are in the files beside this one. */
#include "backends/backends.h"
#include "backends/opencl/opencl_backend.h"
#include "clgauge/program.h"

#include <clblast_c.h>

/* CLBlast keeps the programs it built, keyed by context, for the rest of the process, and each
 * holds its context: a record's programs are of no use to the next record (a context of its
 * own), so they go with the record's device. Kept until the process exits, they are released
 * by CLBlast's static destructors, after the drivers' own may have run (Oclgrind's LLVM then
 * corrupts the heap). */
static void clblast_close(void *device) {
  CLBlastClearCache();
  cg_cl_backend_close(device);
}

const cg_backend cg_backend_clblast = {
    .name = "clblast",
    .summary = "CLBlast on the OpenCL device",
    .needs_device = true,
    .open = cg_cl_backend_open,
    .close = clblast_close,
    .open_overlap_ms = cg_cl_backend_open_overlap_ms,
    .driver_cache = cg_driver_cache_state,
};
