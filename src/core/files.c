/* Files read whole, and written whole or not at all. */
#include "clgauge/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a path names when it is not a regular file, for the message. */
static const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

cg_rc cg_file_read(const char *path, char **data, size_t *size, cg_error *err) {
  cg_rc rc = CG_OK;
  char *buf = NULL;
  /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. It is dropped
   * again once fstat has shown a regular file, where it changes nothing anyway. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  CG_CHECK(fd >= 0, CG_BAD_INPUT, "cannot read '%s': %s", path, strerror(errno));
  struct stat st;
  CG_CHECK(fstat(fd, &st) == 0, CG_BAD_INPUT, "cannot read '%s': %s", path, strerror(errno));
  CG_CHECK(S_ISREG(st.st_mode), CG_BAD_INPUT, "cannot read '%s': %s", path,
           file_kind(st.st_mode));
  const int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  CG_CHECK(st.st_size >= 0 && (uintmax_t)st.st_size < SIZE_MAX, CG_BAD_INPUT,
           "cannot read '%s': too large", path);
  const size_t len = (size_t)st.st_size;
  buf = malloc(len + 1);
  CG_CHECK(buf, CG_ERROR, "out of memory reading '%s' (%zu bytes)", path, len);
  size_t got = 0;
  while (got < len) {
    const ssize_t n = read(fd, buf + got, len - got);
    if (n < 0 && errno == EINTR) continue;
    CG_CHECK(n >= 0, CG_BAD_INPUT, "cannot read '%s': %s", path, strerror(errno));
    CG_CHECK(n > 0, CG_BAD_INPUT, "cannot read '%s': it shrank while being read", path);
    got += (size_t)n;
  }
  buf[len] = '\0';
  *data = buf;
  *size = len;
  buf = NULL;
cleanup:
  if (fd >= 0) close(fd);
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
