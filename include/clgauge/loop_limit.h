/* A driver's limit on the loop iterations of a work-item in one launch. Mesa's llvmpipe
 * (rusticl's CPU device) ends every loop of a work-item once that work-item has run 65535
 * iterations in all in the launch (gallivm's loop limiter): a kernel that loops longer computes
 * less than it should, and says nothing. Seen in Mesa 22.3.6 (Debian 12); Mesa 25.0.7 runs every
 * iteration. Kernels whose work-items may loop that long check their count against the limit
 * and take another path, or refuse, where it is lower. */
#ifndef CLGAUGE_LOOP_LIMIT_H
#define CLGAUGE_LOOP_LIMIT_H

#include <stdint.h>

#include "clgauge/device.h"
#include "clgauge/error.h"
#include "clgauge/program.h"

/* The limit of the device in *limit, 0 where none is known: measured once per device and process
 * by a launch of cl/loop_limit.cl, on llvmpipe only (no other driver is known to cut loops, and
 * the measure costs a build). */
cg_rc cg_loop_limit(const cg_device *dev, const cg_program_store *store, uint64_t *limit,
                    cg_error *err);

/* Whether a work-item that runs `trips` loop iterations in one launch stays within `limit`
 * (0: no limit). */
static inline int cg_loop_limit_holds(uint64_t limit, double trips) {
  return limit == 0 || trips <= (double)limit;
}

#endif
