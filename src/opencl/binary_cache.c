/* The binary cache's directory: its default place, a check that it can be written, the
 * descriptions beside the entries, and the entries listed and cleared. */
#include "clgauge/binary_cache.h"

#include "clgauge/files.h"
#include "clgauge/program.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ENTRY_MAGIC "clgauge-program-binary "
#define INFO_MAGIC "clgauge-program-info 1\n"

cg_rc cg_binary_cache_default_dir(char *out, size_t cap, cg_error *err) {
  cg_rc rc = CG_OK;
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int n = -1;
  if (xdg && xdg[0] == '/')
    n = snprintf(out, cap, "%s/clgauge", xdg);
  else if (home && *home)
    n = snprintf(out, cap, "%s/.cache/clgauge", home);
  CG_CHECK(n >= 0, CG_BAD_INPUT, "neither XDG_CACHE_HOME (an absolute path) nor HOME is set");
  CG_CHECK(n < (int)cap, CG_BAD_INPUT, "the default binary cache path is too long");
cleanup:
  return rc;
}

/* dir and its missing parents made, as mkdir -p does. */
static cg_rc make_dirs(const char *dir, cg_error *err) {
  cg_rc rc = CG_OK;
  char path[4096];
  CG_CHECK(snprintf(path, sizeof path, "%s", dir) < (int)sizeof path, CG_BAD_INPUT,
           "'%s': path too long", dir);
  for (char *p = path + 1;; ++p) {
    const bool end = *p == '\0';
    if (*p != '/' && !end) continue;
    *p = '\0';
    CG_CHECK(mkdir(path, 0777) == 0 || errno == EEXIST, CG_BAD_INPUT,
             "cannot create directory '%s': %s", path, strerror(errno));
    if (end) break;
    *p = '/';
  }
cleanup:
  return rc;
}

cg_rc cg_binary_cache_check(const char *dir, cg_error *err) {
  cg_rc rc = CG_OK;
  int fd = -1;
  char probe[4200] = "";
  CG_TRY(make_dirs(dir, err));
  CG_TRY(cg_dir_ensure(dir, err));
  CG_CHECK(snprintf(probe, sizeof probe, "%s/.clgauge-probe-XXXXXX", dir) < (int)sizeof probe,
           CG_BAD_INPUT, "'%s': path too long", dir);
  fd = mkstemp(probe);
  CG_CHECK(fd >= 0, CG_BAD_INPUT, "cannot write in directory '%s': %s", dir, strerror(errno));
  /* A full disk still lets an empty file be made: a few blocks of data show it (the file
   * system reserves them at write(); no fsync, which would cost every run its latency). */
  static const char block[4096];
  for (int i = 0; i < 4; ++i) {
    errno = 0;
    CG_CHECK(write(fd, block, sizeof block) == (ssize_t)sizeof block, CG_BAD_INPUT,
             "cannot write in directory '%s': %s", dir, errno ? strerror(errno) : "short write");
  }
cleanup:
  if (fd >= 0) {
    close(fd);
    unlink(probe);
  }
  return rc;
}

/* The description's path: the entry's with ".txt" for ".bin". */
static bool info_path(const char *entry_path, char *out, size_t cap) {
  const size_t len = strlen(entry_path);
  if (len < 4 || strcmp(entry_path + len - 4, ".bin") != 0 || len + 1 > cap) return false;
  snprintf(out, cap, "%.*s.txt", (int)(len - 4), entry_path);
  return true;
}

/* One "name=value" line, the value on one line whatever the driver reports. */
static void put_field(FILE *out, const char *name, const char *value) {
  fprintf(out, "%s=", name);
  for (const char *c = value; *c; ++c) fputc(*c == '\n' || *c == '\r' ? ' ' : *c, out);
  fputc('\n', out);
}

cg_rc cg_binary_cache_describe(const char *entry_path, const cg_device_info *info,
                               const char *kernel, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_file_writer w = {0};
  char path[4200];
  CG_CHECK(info_path(entry_path, path, sizeof path), CG_BAD_INPUT,
           "'%s': not a binary cache entry's path", entry_path);
  CG_TRY(cg_file_begin(path, &w, err));
  fputs(INFO_MAGIC, w.out);
  put_field(w.out, "kernel", kernel);
  put_field(w.out, "device", info->name);
  put_field(w.out, "platform", info->platform);
  put_field(w.out, "driver", info->driver_version);
  CG_TRY(cg_file_commit(&w, err));
cleanup:
  if (rc != CG_OK) cg_file_abandon(&w);
  return rc;
}

/* ---- listing and clearing ---- */

/* Length of "<stem>-<16 hex>" when name is that followed by suffix (".bin", ".txt", or either
 * with the ".tmpXXXXXX" of an interrupted store when tmp is set), else 0. */
static size_t own_name(const char *name, const char *suffix, bool tmp) {
  const char *dot = strstr(name, suffix);
  if (!dot || dot - name < 18) return 0;
  const char *rest = dot + strlen(suffix);
  if (tmp ? strncmp(rest, ".tmp", 4) != 0 || strlen(rest) != 10 : *rest != '\0') return 0;
  const char *hex = dot - 16;
  if (hex[-1] != '-') return 0;
  for (int i = 0; i < 16; ++i)
    if (!((hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f'))) return 0;
  return (size_t)(dot - name);
}

/* Whether the regular file begins with the magic (and is clgauge's). */
static bool begins_with(const char *path, const char *magic) {
  char head[64] = "";
  const size_t n = strlen(magic);
  const int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st;
  const bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && read(fd, head, n) == (ssize_t)n &&
                  memcmp(head, magic, n) == 0;
  close(fd);
  return ok;
}

/* The value of "name=" in a description, or "?". */
static void field(const char *text, const char *name, char *out, size_t cap) {
  snprintf(out, cap, "?");
  const size_t n = strlen(name);
  for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
    if (strncmp(line, name, n) == 0 && line[n] == '=') {
      const size_t len = strcspn(line + n + 1, "\n");
      snprintf(out, cap, "%.*s", (int)len, line + n + 1);
      return;
    }
}

static int by_file(const void *a, const void *b) {
  return strcmp(((const cg_cache_item *)a)->file, ((const cg_cache_item *)b)->file);
}

static void describe_item(const char *dir, const char *name, size_t stem, const struct stat *st,
                          cg_cache_item *it) {
  char path[4400], *text = NULL;
  size_t size = 0;
  cg_error ignored = {0};
  memset(it, 0, sizeof *it);
  snprintf(it->file, sizeof it->file, "%s", name);
  it->bytes = (uint64_t)st->st_size;
  it->age_s = difftime(time(NULL), st->st_mtime);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (cg_file_read(path, &text, &size, &ignored) == CG_OK) {
    cg_cache_entry entry;
    it->whole = cg_cache_entry_parse(text, size, &entry) == CG_ENTRY_OK;
    free(text);
    text = NULL;
  }
  snprintf(path, sizeof path, "%s/%.*s.txt", dir, (int)stem, name);
  const bool described = cg_file_read(path, &text, &size, &ignored) == CG_OK &&
                         strncmp(text, INFO_MAGIC, strlen(INFO_MAGIC)) == 0;
  field(described ? text : "", "kernel", it->kernel, sizeof it->kernel);
  if (!described || strcmp(it->kernel, "?") == 0) {
    /* the file name still says which kernel: <stem>-<key>.bin */
    snprintf(it->kernel, sizeof it->kernel, "%.*s.cl", (int)(stem - 17), name);
  }
  field(described ? text : "", "device", it->device, sizeof it->device);
  field(described ? text : "", "platform", it->platform, sizeof it->platform);
  field(described ? text : "", "driver", it->driver, sizeof it->driver);
  free(text);
}

cg_rc cg_binary_cache_list(const char *dir, cg_cache_item **items, int *count, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_cache_item *list = NULL;
  int n = 0, cap = 0;
  *items = NULL;
  *count = 0;
  DIR *d = opendir(dir);
  if (!d && errno == ENOENT) return CG_OK;
  CG_CHECK(d, CG_BAD_INPUT, "cannot read directory '%s': %s", dir, strerror(errno));
  for (const struct dirent *e; (e = readdir(d)) != NULL;) {
    const size_t stem = own_name(e->d_name, ".bin", false);
    char path[4400];
    struct stat st;
    if (!stem) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || !begins_with(path, ENTRY_MAGIC))
      continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      cg_cache_item *bigger = realloc(list, (size_t)cap * sizeof *list);
      CG_CHECK(bigger, CG_ERROR, "out of memory");
      list = bigger;
    }
    describe_item(dir, e->d_name, stem, &st, &list[n++]);
  }
  if (n > 1) qsort(list, (size_t)n, sizeof *list, by_file);
  *items = list;
  *count = n;
  list = NULL;
cleanup:
  if (d) closedir(d);
  free(list);
  return rc;
}

cg_rc cg_binary_cache_clear(const char *dir, int *removed, cg_error *err) {
  cg_rc rc = CG_OK;
  *removed = 0;
  DIR *d = opendir(dir);
  if (!d && errno == ENOENT) return CG_OK;
  CG_CHECK(d, CG_BAD_INPUT, "cannot read directory '%s': %s", dir, strerror(errno));
  for (const struct dirent *e; (e = readdir(d)) != NULL;) {
    char path[4400];
    struct stat st;
    const bool entry = own_name(e->d_name, ".bin", false) != 0;
    const bool info = own_name(e->d_name, ".txt", false) != 0;
    const bool tmp = own_name(e->d_name, ".bin", true) || own_name(e->d_name, ".txt", true);
    if (!entry && !info && !tmp) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    /* a temporary file may hold any part of an entry, even nothing yet: the name says enough */
    if (!tmp && !begins_with(path, entry ? ENTRY_MAGIC : INFO_MAGIC)) continue;
    CG_CHECK(unlink(path) == 0 || errno == ENOENT, CG_BAD_INPUT, "cannot remove '%s': %s", path,
             strerror(errno));
    *removed += entry;
  }
cleanup:
  if (d) closedir(d);
  return rc;
}
