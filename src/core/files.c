/* Files read whole, and written whole or not at all. */
#include "clgauge/files.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

cg_rc cg_file_read(const char *path, char **data, size_t *size, cg_error *err) {
  cg_rc rc = CG_OK;
  char *buf = NULL;
  FILE *f = fopen(path, "rb");
  CG_CHECK(f, CG_BAD_INPUT, "cannot read '%s': %s", path, strerror(errno));
  CG_CHECK(fseek(f, 0, SEEK_END) == 0, CG_BAD_INPUT, "cannot read '%s': not a seekable file",
           path);
  long len = ftell(f);
  CG_CHECK(len >= 0 && fseek(f, 0, SEEK_SET) == 0, CG_BAD_INPUT,
           "cannot read '%s': not a seekable file", path);
  buf = malloc((size_t)len + 1);
  CG_CHECK(buf, CG_ERROR, "out of memory reading '%s'", path);
  CG_CHECK(fread(buf, 1, (size_t)len, f) == (size_t)len, CG_BAD_INPUT,
           "cannot read '%s': short read", path);
  buf[len] = '\0';
  *data = buf;
  *size = (size_t)len;
  buf = NULL;
cleanup:
  if (f) fclose(f);
  free(buf);
  return rc;
}

cg_rc cg_file_target(const char *path, char *out, size_t size, cg_error *err) {
  cg_rc rc = CG_OK;
  char cur[4096], link[4096];
  CG_CHECK(path && *path, CG_BAD_INPUT, "empty output path");
  CG_CHECK(snprintf(cur, sizeof cur, "%s", path) < (int)sizeof cur, CG_BAD_INPUT,
           "output path too long: '%s'", path);
  for (int hops = 0;; ++hops) {
    struct stat st;
    if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) break;
    CG_CHECK(hops < 40, CG_BAD_INPUT, "cannot write '%s': %s", path, strerror(ELOOP));
    const ssize_t n = readlink(cur, link, sizeof link);
    CG_CHECK(n >= 0, CG_BAD_INPUT, "cannot write '%s': %s", path, strerror(errno));
    CG_CHECK((size_t)n < sizeof link, CG_BAD_INPUT, "output path too long: '%s'", path);
    link[n] = '\0';
    /* a relative target is relative to the link's directory */
    const char *slash = strrchr(cur, '/');
    const int dir = link[0] == '/' || !slash ? 0 : (int)(slash - cur) + 1;
    char next[sizeof cur];
    CG_CHECK(snprintf(next, sizeof next, "%.*s%s", dir, cur, link) < (int)sizeof next,
             CG_BAD_INPUT, "output path too long: '%s'", path);
    memcpy(cur, next, sizeof cur);
  }
  CG_CHECK(snprintf(out, size, "%s", cur) < (int)size, CG_BAD_INPUT,
           "output path too long: '%s'", path);
cleanup:
  return rc;
}

cg_rc cg_file_begin(const char *path, cg_file_writer *w, cg_error *err) {
  cg_rc rc = CG_OK;
  w->out = NULL;
  CG_CHECK(path && *path, CG_BAD_INPUT, "empty output path");
  /* Through symbolic links: the file they lead to is replaced, the links stay. */
  char target[sizeof w->path];
  CG_TRY(cg_file_target(path, target, sizeof target, err));
  CG_CHECK(snprintf(w->path, sizeof w->path, "%s", target) < (int)sizeof w->path &&
               snprintf(w->tmp, sizeof w->tmp, "%s.tmpXXXXXX", target) < (int)sizeof w->tmp,
           CG_BAD_INPUT, "output path too long: '%s'", path);
  struct stat st;
  CG_CHECK(stat(path, &st) != 0 || S_ISREG(st.st_mode), CG_BAD_INPUT,
           "cannot write '%s': not a regular file", path);
  int fd = mkstemp(w->tmp);
  CG_CHECK(fd >= 0, CG_BAD_INPUT, "cannot write '%s': %s", path, strerror(errno));
  /* mkstemp creates 0600; the file gets the mode any new file would (0666 less umask) */
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  w->out = fdopen(fd, "wb");
  if (!w->out) {
    int e = errno;
    close(fd);
    unlink(w->tmp);
    CG_CHECK(0, CG_ERROR, "cannot write '%s': %s", path, strerror(e));
  }
cleanup:
  return rc;
}

cg_rc cg_file_commit(cg_file_writer *w, cg_error *err) {
  cg_rc rc = CG_OK;
  bool ok = !ferror(w->out);
  errno = 0;
  ok = (fclose(w->out) == 0) && ok;
  w->out = NULL;
  if (!ok || rename(w->tmp, w->path) != 0) {
    int e = errno;
    unlink(w->tmp);
    CG_CHECK(0, CG_ERROR, "cannot write '%s': %s", w->path, e ? strerror(e) : "write error");
  }
cleanup:
  return rc;
}

void cg_file_abandon(cg_file_writer *w) {
  if (!w->out) return;
  fclose(w->out);
  w->out = NULL;
  unlink(w->tmp);
}

cg_rc cg_dir_ensure(const char *path, cg_error *err) {
  cg_rc rc = CG_OK;
  struct stat st;
  CG_CHECK(path && *path, CG_BAD_INPUT, "empty directory path");
  if (stat(path, &st) != 0)
    CG_CHECK(mkdir(path, 0777) == 0 && stat(path, &st) == 0, CG_BAD_INPUT,
             "cannot create directory '%s': %s", path, strerror(errno));
  CG_CHECK(S_ISDIR(st.st_mode), CG_BAD_INPUT, "'%s' is not a directory", path);
  CG_CHECK(access(path, W_OK | X_OK) == 0, CG_BAD_INPUT, "cannot write in directory '%s': %s",
           path, strerror(errno));
cleanup:
  return rc;
}

cg_rc cg_file_check_writable(const char *path, cg_error *err) {
  cg_file_writer w;
  cg_rc rc = cg_file_begin(path, &w, err);
  if (rc == CG_OK) cg_file_abandon(&w);
  return rc;
}
