/* Helpers shared by the Check test suites (see test_util.h). */
#include "test_util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clgauge/clock.h"
#include "clgauge/events.h"
#include "clgauge/stats.h"

/* The index of rusticl's first device in the enumeration child's list, or the device count
 * where rusticl has none: a test process forked later reads it (cg_test_device_at). */
static int rusticl_first = -1;

int cg_test_device_count(void) {
  static int cached = -2;
  if (cached != -2) return cached;
  fflush(stdout);
  fflush(stderr);
  int fds[2];
  if (pipe(fds) != 0) {
    perror("pipe");
    return cached = -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    close(fds[0]);
    close(fds[1]);
    return cached = -1;
  }
  if (pid == 0) {
    close(fds[0]);
    cg_device_list list;
    cg_error err = {0};
    if (cg_device_list_query(&list, &err) != CG_OK) {
      fprintf(stderr, "device enumeration failed: %s\n", err.msg);
      fflush(stderr);
      _exit(255);
    }
    int n = list.count > 250 ? 250 : list.count, first = n;
    for (int i = n - 1; i >= 0; --i)
      if (strcmp(list.items[i].platform, "rusticl") == 0) first = i;
    const ssize_t written = write(fds[1], &first, sizeof first);
    cg_device_list_free(&list);
    /* _exit: no atexit handlers of the drivers in a throw-away child. */
    _exit(written == (ssize_t)sizeof first ? n : 255);
  }
  close(fds[1]);
  int first = -1;
  ssize_t got = 0;
  do
    got = read(fds[0], &first, sizeof first);
  while (got < 0 && errno == EINTR);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      perror("waitpid");
      return cached = -1;
    }
  }
  rusticl_first = got == (ssize_t)sizeof first ? first : -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 255) {
    fprintf(stderr, "the device enumeration child failed (status 0x%x)\n", (unsigned)status);
    return cached = -1;
  }
  return cached = WEXITSTATUS(status);
}

int cg_test_main(Suite *(*make_suite)(void), bool needs_opencl) {
  if (needs_opencl) {
    int n = cg_test_device_count();
    if (n < 0) return EXIT_FAILURE;
    if (n == 0) {
      printf("no OpenCL platform with a device: skipped\n");
      return CG_TEST_SKIP;
    }
  }
  SRunner *runner = srunner_create(make_suite());
  /* Every test runs in its own forked child (Check's default, made explicit): OpenCL objects are
   * created inside the tests only. CK_FORK=no in the environment still overrides this. */
  if (!getenv("CK_FORK")) srunner_set_fork_status(runner, CK_FORK);
  srunner_run_all(runner, getenv("CK_VERBOSITY") ? CK_ENV : CK_VERBOSE);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

uint64_t cg_test_seed(void) {
  static uint64_t counter;
  const char *env = getenv("CLGAUGE_TEST_SEED");
  if (env && *env) return strtoull(env, NULL, 0) + counter++;
  uint64_t s = cg_now_ns() ^ ((uint64_t)getpid() << 32) ^ (++counter * 0x9e3779b97f4a7c15ull);
  return s & 0xffffffffffffull; /* 48 bits: exact as a double, short to type */
}

void cg_test_devices(cg_device_list *list) {
  cg_error err = {0};
  cg_rc rc = cg_device_list_query(list, &err);
  ck_assert_msg(rc == CG_OK, "cg_device_list_query failed: %s", err.msg);
  ck_assert_msg(list->count > 0, "no OpenCL device found in the test, but main found some");
}

const cg_device_info *cg_test_device_at(cg_device_list *list, int index) {
  /* in a process of its own only (Check's fork mode): with CK_FORK=no the later tests share
   * this process and its drivers */
  const char *fork_mode = getenv("CK_FORK");
  if (index >= 0 && index < rusticl_first && !(fork_mode && strcmp(fork_mode, "no") == 0))
    unsetenv("RUSTICL_ENABLE");
  cg_test_devices(list);
  ck_assert_msg(index >= 0 && index < list->count, "device %d of %d", index, list->count);
  return &list->items[index];
}

void cg_test_tempdir(char *path, size_t size) {
  const char *base = getenv("TMPDIR");
  if (!base || !*base) base = "/tmp";
  int n = snprintf(path, size, "%s/clgauge-test-XXXXXX", base);
  ck_assert_msg(n > 0 && (size_t)n < size, "temporary directory path too long");
  ck_assert_msg(mkdtemp(path) != NULL, "mkdtemp(%s): %s", path, strerror(errno));
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

void cg_test_rmtree(const char *path) { nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

char *cg_test_read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  while (buf) {
    len += fread(buf + len, 1, cap - len - 1, f);
    if (ferror(f)) {
      free(buf);
      buf = NULL;
      break;
    }
    if (feof(f)) break;
    char *grown = realloc(buf, cap * 2);
    if (!grown) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = grown;
    cap *= 2;
  }
  fclose(f);
  if (!buf) return NULL;
  buf[len] = '\0';
  if (size) *size = len;
  return buf;
}

void cg_test_write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot create %s: %s", path, strerror(errno));
  size_t len = strlen(text);
  ck_assert_msg(fwrite(text, 1, len, f) == len, "cannot write %s", path);
  ck_assert_msg(fclose(f) == 0, "cannot close %s", path);
}

bool cg_test_exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

int cg_test_dir_entries(const char *path) {
  DIR *d = opendir(path);
  if (!d) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) ++n;
  closedir(d);
  return n;
}

bool cg_test_contains_nocase(const char *haystack, const char *needle) {
  size_t hn = strlen(haystack), nn = strlen(needle);
  for (size_t start = 0; start + nn <= hn; ++start) {
    size_t i = 0;
    while (i < nn &&
           tolower((unsigned char)haystack[start + i]) == tolower((unsigned char)needle[i]))
      ++i;
    if (i == nn) return true;
  }
  return false;
}

int cg_test_variant_count(const char *workload, bool opencl) {
  int n = 0;
  for (const cg_impl *const *i = cg_impl_all(); *i; ++i)
    if (strcmp((*i)->workload, workload) == 0 && (*i)->backend->needs_device == opencl)
      for (const char *const *v = (*i)->variants; *v; ++v) ++n;
  return n;
}

int cg_test_combo_count(const char *workload, bool with_host) {
  int devices = cg_test_device_count();
  return (with_host ? cg_test_variant_count(workload, false) : 0) +
         (devices > 0 ? devices : 0) * cg_test_variant_count(workload, true);
}

cg_test_combo cg_test_combo_at(const char *workload, int index, bool with_host) {
  cg_test_combo c = {NULL, NULL, NULL, -1};
  int host = with_host ? cg_test_variant_count(workload, false) : 0;
  int ocl = cg_test_variant_count(workload, true);
  bool opencl = index >= host;
  int within = opencl ? (index - host) % ocl : index;
  if (opencl) c.device = (index - host) / ocl;
  int n = 0;
  for (const cg_impl *const *i = cg_impl_all(); *i; ++i) {
    if (strcmp((*i)->workload, workload) != 0 || (*i)->backend->needs_device != opencl) continue;
    for (const char *const *v = (*i)->variants; *v; ++v, ++n)
      if (n == within) {
        c.impl = *i;
        c.backend = (*i)->backend;
        c.variant = *v;
      }
  }
  ck_assert_msg(c.backend != NULL, "internal: no combo %d", index);
  return c;
}

const char *cg_test_combo_name(const cg_test_combo *c, const cg_device_list *list, char *buf,
                               size_t n) {
  snprintf(buf, n, "%s/%s on %s", c->backend->name, c->variant,
           c->device < 0 ? "the host" : list->items[c->device].name);
  return buf;
}
