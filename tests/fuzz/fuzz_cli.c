/* libFuzzer target: the front end's command-line parsing helpers (bench/cli.c) and the
 * --kernel-param parser (cg_kernel_overrides_parse). The input is read twice: whole, as one
 * option value, and split at its NUL bytes, as an argument vector. Besides the sanitizers'
 * findings, what a parser accepts must keep its promises: a number within its range, a list
 * that joins back into the text with no empty name, options that stay inside the vector. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "clgauge/kernel_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise: said (when stderr is open: reproducing one input) and a crash for libFuzzer. */
#define check(ok) ((ok) ? (void)0 : broken(#ok, __LINE__))
static void broken(const char *what, int line) {
  fprintf(stderr, "%s:%d: broken: %s\n", __FILE__, line, what);
  abort();
}

static void value_parsers(const char *text) {
  static const long long ranges[][2] = {
      {1, 1 << 20}, {0, 0}, {-5, 5}, {-2147483647 - 1, 2147483647}};
  for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; ++r) {
    int v = 0;
    if (cli_int("--n", text, ranges[r][0], ranges[r][1], &v))
      check(v >= ranges[r][0] && v <= ranges[r][1]);
  }
  uint64_t u = 0;
  if (cli_u64("--seed", text, &u)) check(u <= (1ull << 53));
  double d = 0;
  if (cli_double("--lr", text, 0, 1e3, &d)) check(isfinite(d) && d >= 0 && d <= 1e3);

  char **list = NULL;
  if (cli_list("--backend", text, &list)) {
    /* the names, joined with commas, are the text again */
    size_t at = 0;
    int n = 0;
    for (; list[n]; ++n) {
      const size_t len = strlen(list[n]);
      check(len > 0 && strchr(list[n], ',') == NULL);
      check(strncmp(text + at, list[n], len) == 0);
      at += len;
      check(text[at] == (list[n + 1] ? ',' : '\0'));
      at += list[n + 1] != NULL;
    }
    check(n >= 1);
    cli_list_free(list);
  }

  cg_kernel_overrides o = {0};
  cg_error err = {0};
  if (cg_kernel_overrides_parse(&o, text, &err) == CG_OK) {
    check(o.count >= 1 && o.count <= CG_MAX_OVERRIDES);
    for (int i = 0; i < o.count; ++i) {
      check(o.items[i].name[0] != '\0');
      check(strspn(o.items[i].name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
            strlen(o.items[i].name));
      check(o.items[i].value >= -1000000 && o.items[i].value <= 1000000);
      for (int j = 0; j < i; ++j) check(strcmp(o.items[i].name, o.items[j].name) != 0);
    }
    /* names replace: the same text again changes nothing */
    cg_kernel_overrides again = o;
    check(cg_kernel_overrides_parse(&again, text, &err) == CG_OK);
    check(memcmp(&again, &o, sizeof o) == 0);
  } else {
    check(err.rc == CG_BAD_INPUT && strncmp(err.msg, "--kernel-param", 14) == 0);
  }
}

static void argument_vector(char *buf, size_t size) {
  enum { MAX_ARGS = 64 };
  char *argv[MAX_ARGS + 1];
  int argc = 0;
  for (size_t at = 0; at < size && argc < MAX_ARGS;) {
    argv[argc++] = buf + at;
    at += strlen(buf + at) + 1;
  }
  argv[argc] = NULL;
  int n = 0, runs = 0;
  const cli_int_opt opts[] = {{"--n", &n, 1, 100000}, {"--runs", &runs, 1, 1000}};
  for (int i = 0; i < argc; ++i) {
    const int at = i;
    const char *value = NULL;
    bool bad = false;
    if (cli_option(argc, argv, &i, "--kernel-param", &value, &bad)) {
      check(i < argc && (bad ? value == NULL : value != NULL));
      if (value) check(value >= argv[at] && value <= argv[i] + strlen(argv[i]));
      continue;
    }
    check(i == at);
    const int r = cli_int_options(argc, argv, &i, opts, 2);
    check(r >= -1 && r <= 1 && i < argc && (r != 0 || i == at));
    if (r == 1) check((n >= 1 && n <= 100000) || (runs >= 1 && runs <= 1000));
    (void)cli_flag(argv[i], "--quiet");
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = malloc(size + 1);
  if (!buf) return 0;
  memcpy(buf, data, size);
  buf[size] = '\0';
  value_parsers(buf); /* up to the first NUL byte */
  argument_vector(buf, size);
  free(buf);
  return 0;
}
