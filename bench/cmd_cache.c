/* The binary cache from the front end: where a run keeps its programs (the default place, or
 * --binary-cache DIR, or none), and `clgauge cache list|clear`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "front.h"
#include "clgauge/binary_cache.h"

static char default_dir[4096];

int binary_cache_resolve(common_opts *o) {
  if (o->binary_cache && o->no_binary_cache) {
    cli_error("--binary-cache '%s' and --no-binary-cache: give one of them", o->binary_cache);
    return EXIT_USAGE;
  }
  /* An explicit directory is checked with the other outputs, as a usage error (session.c). A
   * cold compile means cold: clgauge's own cache stays off unless a directory is named. */
  if (o->binary_cache || o->no_binary_cache || o->cold_compile) return 0;
  cg_error err = {0};
  if (cg_binary_cache_default_dir(default_dir, sizeof default_dir, &err) == CG_OK &&
      cg_binary_cache_check(default_dir, &err) == CG_OK) {
    o->binary_cache = default_dir;
    return 0;
  }
  /* The cache only saves time: without it the run is the same, only its compiles are cold. */
  fprintf(stderr,
          "clgauge: no binary cache: %s; programs are built from source (--binary-cache DIR "
          "keeps them elsewhere, --no-binary-cache says this is meant)\n",
          err.msg);
  return 0;
}

/* ---- clgauge cache ---- */

static void cache_help(void) {
  printf("usage: clgauge cache list|clear [--binary-cache DIR]\n\n"
         "clgauge keeps the OpenCL programs it builds in a binary cache and loads them on later\n"
         "runs (the compile phase then shows the cached cost). By default the cache is\n"
         "$XDG_CACHE_HOME/clgauge, else $HOME/.cache/clgauge; the workload commands take\n"
         "--binary-cache DIR for another place and --no-binary-cache for none.\n\n"
         "  list               every entry: the kernel file, the device and driver it was built\n"
         "                     for, its size and age; 'damaged' where it no longer checks (the\n"
         "                     next build replaces it)\n"
         "  clear              remove every entry (only clgauge's own files: other files in the\n"
         "                     directory stay)\n"
         "  --binary-cache DIR the cache in DIR instead of the default place\n"
         "  --help             this text\n\n"
         "Entries are keyed by the kernel source, the build options, the device and its driver\n"
         "version: after a driver update the old entries are no longer used; 'clear' removes\n"
         "them. Exit status: 0 done, 1 the directory cannot be read or an entry removed, 2 bad\n"
         "usage.\n");
}

static void print_bytes(uint64_t bytes, char *buf, size_t size) {
  const char *units[] = {"B", "KiB", "MiB", "GiB"};
  double v = (double)bytes;
  int u = 0;
  while (v >= 1024 && u < 3) v /= 1024, ++u;
  snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

static void print_age(double s, char *buf, size_t size) {
  if (s < 0) s = 0; /* a clock set back */
  if (s < 120)
    snprintf(buf, size, "%.0f s", s);
  else if (s < 7200)
    snprintf(buf, size, "%.0f min", s / 60);
  else if (s < 172800)
    snprintf(buf, size, "%.0f h", s / 3600);
  else
    snprintf(buf, size, "%.0f days", s / 86400);
}

static int cache_list(const char *dir) {
  cg_cache_item *items = NULL;
  int n = 0;
  cg_error err = {0};
  if (cg_binary_cache_list(dir, &items, &n, &err) != CG_OK) {
    cli_error("%s", err.msg);
    return EXIT_FAILURE;
  }
  uint64_t total = 0;
  for (int i = 0; i < n; ++i) total += items[i].bytes;
  char size[32];
  print_bytes(total, size, sizeof size);
  printf("binary cache %s: %d entr%s, %s\n", dir, n, n == 1 ? "y" : "ies", size);
  if (n > 0)
    printf("%-14s %-40s %-24s %10s %9s\n", "kernel", "device", "driver", "size", "age");
  for (int i = 0; i < n; ++i) {
    char age[32];
    print_bytes(items[i].bytes, size, sizeof size);
    print_age(items[i].age_s, age, sizeof age);
    printf("%-14s %-40.40s %-24.24s %10s %9s%s\n", items[i].kernel, items[i].device,
           items[i].driver, size, age, items[i].whole ? "" : "  damaged");
  }
  free(items);
  return 0;
}

int cmd_cache(int argc, char **argv) {
  cli_set_command("clgauge cache");
  const char *action = NULL, *dir = NULL;
  for (int i = 1; i < argc; ++i) {
    const char *v = NULL;
    bool bad = false;
    if (cli_flag(argv[i], "--help")) {
      cache_help();
      return 0;
    }
    if (cli_option(argc, argv, &i, "--binary-cache", &v, &bad)) {
      if (bad) return EXIT_USAGE;
      if (!*v) {
        cli_error("--binary-cache '': an empty directory name");
        return EXIT_USAGE;
      }
      dir = v;
    } else if (!action && (strcmp(argv[i], "list") == 0 || strcmp(argv[i], "clear") == 0)) {
      action = argv[i];
    } else {
      cli_error("unknown argument '%s' (see 'clgauge cache --help')", argv[i]);
      return EXIT_USAGE;
    }
  }
  if (!action) {
    cli_error("list or clear? (see 'clgauge cache --help')");
    return EXIT_USAGE;
  }
  cg_error err = {0};
  if (!dir) {
    if (cg_binary_cache_default_dir(default_dir, sizeof default_dir, &err) != CG_OK) {
      cli_error("%s: name the cache with --binary-cache DIR", err.msg);
      return EXIT_USAGE;
    }
    dir = default_dir;
  }
  if (strcmp(action, "list") == 0) return cache_list(dir);
  int removed = 0;
  const cg_rc rc = cg_binary_cache_clear(dir, &removed, &err);
  printf("binary cache %s: %d entr%s removed\n", dir, removed, removed == 1 ? "y" : "ies");
  if (rc != CG_OK) {
    cli_error("%s", err.msg);
    return EXIT_FAILURE;
  }
  return 0;
}
