/* The binary cache's directory: where it lives by default, whether it can be written, and its
 * entries listed and cleared. The entries themselves (their format, loading and storing) are
 * program.h's; beside each entry a small description names the kernel, device and driver it
 * was built for, so that a listing can say what the cache holds without a device. */
#ifndef CLGAUGE_BINARY_CACHE_H
#define CLGAUGE_BINARY_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clgauge/device.h"
#include "clgauge/error.h"

/* The default directory: $XDG_CACHE_HOME/clgauge, else $HOME/.cache/clgauge (the XDG base
 * directory rule: a relative XDG_CACHE_HOME is ignored). CG_BAD_INPUT when neither is set. */
cg_rc cg_binary_cache_default_dir(char *out, size_t cap, cg_error *err);

/* Whether entries can be stored in dir: it is made when missing (with its missing parents),
 * then a file of a few KiB is written there and removed, so that a full disk shows too.
 * CG_BAD_INPUT naming the directory and the reason otherwise. */
cg_rc cg_binary_cache_check(const char *dir, cg_error *err);

/* Write the description of the entry at entry_path (a path ending in ".bin") beside it, whole
 * or not at all. What is described is not trusted when loading: a description that is missing
 * or stale only makes a listing say less. */
cg_rc cg_binary_cache_describe(const char *entry_path, const cg_device_info *info,
                               const char *kernel, cg_error *err);

/* One entry of the cache, as a listing shows it. */
typedef struct cg_cache_item {
  char file[256];     /* the entry's file name inside the directory */
  char kernel[64];    /* the kernel file it was built from (matmul.cl) */
  char device[256], platform[128], driver[128]; /* "?" when the description is missing */
  uint64_t bytes;     /* of the entry file */
  double age_s;       /* since the entry was last written */
  bool whole;         /* the entry parses and its checksum holds */
} cg_cache_item;

/* The entries of clgauge's own in dir (files named <kernel>-<16 hex digits>.bin that begin
 * with the entry format's magic), sorted by file name; *items malloc'd (free it), *count set.
 * A missing directory has no entries. */
cg_rc cg_binary_cache_list(const char *dir, cg_cache_item **items, int *count, cg_error *err);

/* Remove clgauge's own entries from dir with their descriptions and the temporary files an
 * interrupted store left; nothing else in dir is touched. *removed counts the entries. */
cg_rc cg_binary_cache_clear(const char *dir, int *removed, cg_error *err);

#endif
