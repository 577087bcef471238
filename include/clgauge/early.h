/* The head start of a run: platform discovery and the opening of the device the run will use,
 * on a thread of their own from the moment the options are known, while the main thread goes
 * on with its own work (checks, the inputs, the host reference). The results are the same as
 * cg_device_list_query's and cg_device_open's, errors included; only their timing differs, and
 * the part of each that ran beside other work is reported as overlapped, never hidden. */
#ifndef CLGAUGE_EARLY_H
#define CLGAUGE_EARLY_H

#include <stdbool.h>

#include "clgauge/device.h"

/* Start the thread: it lists the platforms and devices, then, where selector picks one device
 * (cg_device_select's rules; NULL or "" for the default) and open is true, opens it. A
 * selector that picks nothing, or a list of devices, opens nothing: the caller's own selection
 * on the same list reports it. Without a thread (it could not be made) the calls below do the
 * work themselves. Call at most once per process, before any other OpenCL call, and after the
 * environment the drivers read is final (nothing may setenv while the thread runs). */
void cg_early_start(const char *selector, bool open);

/* The device list, as cg_device_list_query gives it (the caller owns it), waiting for the
 * thread where one was started. *overlap_ms: the part of list->query_ms that ran before this
 * call, beside the caller's work (0 without a thread). */
cg_rc cg_early_list(cg_device_list *out, double *overlap_ms, cg_error *err);

/* The device the thread opened, if it is info's and not taken yet (and the list was had
 * through cg_early_list): waits for it, hands it over, or its error as cg_device_open gives
 * it, in *rc, and returns true. The device's cg_device_open_overlap_ms is the part of its
 * opening that ran before this call, beside the caller's work. Otherwise false and nothing
 * set: the caller opens the device itself. */
bool cg_early_take(const cg_device_info *info, cg_device **out, cg_rc *rc, cg_error *err);

/* Wait for the opening to end (the device stays for cg_early_take), before work that is
 * timed on the host: the thread must not compete with it. Its time from here on counts as
 * waited for, not overlapped. Only after cg_early_list. */
void cg_early_wait(void);

/* Wait for the thread and release what it made and nobody took. */
void cg_early_end(void);

#endif
