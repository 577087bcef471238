/* A copy whose stores go to memory past the caches (non-temporal stores), for host buffers that
 * are written once and then read by a device's DMA rather than by the host: an ordinary store
 * first reads each destination line into the cache (a read the copy does not need) and leaves
 * the line there, where it displaces the rows still to be read. Pinned linear's gather writes
 * its staging buffers so when asked (kernel parameter STREAM). */
#ifndef CLGAUGE_STREAM_COPY_H
#define CLGAUGE_STREAM_COPY_H

#include <stdbool.h>
#include <stddef.h>

/* Whether this build has streaming stores (x86 with SSE2); without them cg_stream_copy is
 * memcpy. */
bool cg_stream_copy_available(void);

/* memcpy(dst, src, bytes) for buffers that do not overlap, any alignment, with streaming stores
 * where available; its stores are ordered before any store the caller makes after it returns
 * (as another thread, or a DMA started later, needs them). */
void cg_stream_copy(void *dst, const void *src, size_t bytes);

#endif
