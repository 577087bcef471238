/* Private to src/workloads: what clgauge tune's two searches share (tune.c, the hand-written
 * kernels' parameters; tune_clblast.c, CLBlast's through its own tuner). */
#ifndef CLGAUGE_TUNE_RUN_H
#define CLGAUGE_TUNE_RUN_H

#include "clgauge/tune.h"

/* Run the job's record of one backend and variant with these overrides (and no tuning file): its
 * steady time per iteration, or NAN with why; *ran (may be NULL) gets the kernel configuration it
 * ran with. */
double cg_tune_run_once(const cg_job *job, const cg_selection *sel, const cg_device_info *device,
                        const char *backend, const char *variant,
                        const cg_kernel_overrides *overrides, cg_kernel_config *ran, char *why,
                        size_t why_size);

/* An entry's key for the job on the device (its size class and shape), dated now; the rest zero. */
void cg_tune_entry_key(const cg_job *job, const cg_device_info *device, const char *backend,
                       const char *variant, cg_tuning_entry *out);

#endif
