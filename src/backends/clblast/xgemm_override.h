/* Private to src/backends/clblast: CLBlast's Xgemm parameters from a tuning file or
 * --kernel-param (names in clgauge/xgemm_tuner.h), applied with CLBlastOverrideParameters. */
#ifndef CLGAUGE_CLBLAST_XGEMM_OVERRIDE_H
#define CLGAUGE_CLBLAST_XGEMM_OVERRIDE_H

#include "backends/opencl/opencl_backend.h"

/* Apply the Xgemm parameters among env's overrides to env's device, all 16 of them or none, and
 * list them in config with their origins. CLBlast keeps an override for the rest of the process
 * (it has no call that restores its own choice), so a record without parameters on a device that
 * an earlier record overrode is refused (CG_UNSUPPORTED, saying why); the same parameters again
 * are kept as they are. CG_BAD_INPUT names the missing ones of an incomplete set. */
cg_rc cg_clblast_xgemm_apply(const cg_backend_env *env, cg_kernel_config *config, cg_error *err);

/* For CLBlast's other routines: a line in the record's warning when an earlier record of this
 * process overrode the device's Xgemm parameters, which their products then run too. */
void cg_clblast_xgemm_warn(const cg_backend_env *env);

#endif
