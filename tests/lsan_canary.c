/* Leaks on purpose, in the sanitized test tree only: with the drivers' suppressions of lsan.supp
 * in force, LeakSanitizer must still report a block of ours ("host"), and cl_audit a program
 * that was never released ("driver"), or the sanitizer stage could be passing over leaks of
 * ours.
 *   lsan_canary host|driver */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/device.h"
#include "clgauge/program.h"

static void *volatile sink;

/* Not inlined, so that the report names it. */
__attribute__((noinline)) static void canary_host_leak(void) {
  char *block = malloc(77);
  if (block) block[0] = 1;
  sink = block;
  sink = NULL;
}

/* A program built on every device and never released (nor, through it, its context). */
static int canary_driver_leak(void) {
  cg_device_list list;
  cg_error err = {0};
  if (cg_device_list_query(&list, &err) != CG_OK) {
    fprintf(stderr, "lsan_canary: %s\n", err.msg);
    return 1;
  }
  for (int i = 0; i < list.count; ++i) {
    cg_device *dev = NULL;
    cl_program program = NULL;
    if (cg_device_open(&list.items[i], &dev, &err) == CG_OK &&
        cg_program_build(dev, NULL, "stamp.cl", NULL, &program, NULL, &err) == CG_OK)
      printf("left unreleased: a program on %s\n", list.items[i].name);
    if (dev) cg_device_close(dev);
  }
  cg_device_list_free(&list);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "host") == 0) {
    canary_host_leak();
    return 0;
  }
  if (argc == 2 && strcmp(argv[1], "driver") == 0) return canary_driver_leak();
  fprintf(stderr, "usage: lsan_canary host|driver\n");
  return 2;
}
