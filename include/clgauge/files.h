/* Files read whole, and files written whole or not at all (to a temporary file beside the
 * target, renamed over it once complete), for results files and cached program binaries. */
#ifndef CLGAUGE_FILES_H
#define CLGAUGE_FILES_H

#include <stddef.h>
#include <stdio.h>

#include "clgauge/error.h"

/* The whole file, malloc'd and NUL-terminated (the caller frees it). CG_BAD_INPUT naming the
 * path and the reason when it cannot be read; anything but a regular file (a directory, a FIFO,
 * a device) is refused without reading from it or waiting on it. */
cg_rc cg_file_read(const char *path, char **data, size_t *size, cg_error *err);

/* A file being written: call cg_file_commit to put it in place, or cg_file_abandon. */
typedef struct cg_file_writer {
  FILE *out;
  char path[4096], tmp[4200];
} cg_file_writer;

/* The file that writing path replaces: path with its symbolic links followed (a relative link
 * from its own directory), the last one possibly dangling. CG_BAD_INPUT on a loop. */
cg_rc cg_file_target(const char *path, char *out, size_t size, cg_error *err);

/* Open a temporary file beside the file path leads to (cg_file_target: a symbolic link is kept
 * and its target replaced); refuses a path that names a directory or other non-file. */
cg_rc cg_file_begin(const char *path, cg_file_writer *w, cg_error *err);
/* Close and rename over the path; on any write error the target is left as it was. */
cg_rc cg_file_commit(cg_file_writer *w, cg_error *err);
void cg_file_abandon(cg_file_writer *w);

/* Check, before a long run, that a file can be written at path (nothing is left behind). */
cg_rc cg_file_check_writable(const char *path, cg_error *err);

/* A writable directory at path: created when missing (its parent must exist). */
cg_rc cg_dir_ensure(const char *path, cg_error *err);

#endif
