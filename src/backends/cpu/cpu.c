/* The cpu backend: OpenBLAS and plain C loops on the host, the reference that every other backend
 * is verified against. Its implementations are in the files beside this one. */
#include "backends/backends.h"

const cg_backend cg_backend_cpu = {
    .name = "cpu",
    .summary = "OpenBLAS on the host CPU (the reference)",
    .is_reference = true,
    .needs_device = false,
};
