/* libFuzzer target: the binary cache's entry parser (cg_cache_entry_parse) on any bytes. Besides
 * the sanitizers' findings (a read past the bytes, undefined behaviour), an accepted entry must
 * lie inside the bytes and be exactly what the writer would have written for its key and body:
 * one form only, so that nothing else reaches the driver. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/program.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const cg_cache_entry untouched = {.key = 0x5eed, .body = NULL, .size = 12345};
  cg_cache_entry entry = untouched;
  const cg_cache_verdict verdict = cg_cache_entry_parse(data, size, &entry);
  if (verdict != CG_ENTRY_OK) {
    if (verdict != CG_ENTRY_FOREIGN && verdict != CG_ENTRY_TRUNCATED &&
        verdict != CG_ENTRY_DAMAGED)
      abort();
    if (memcmp(&entry, &untouched, sizeof entry) != 0) abort(); /* a refusal writes nothing */
    return 0;
  }
  if (entry.size == 0 || entry.body < data || entry.body + entry.size != data + size) abort();
  const size_t header = (size_t)(entry.body - data);
  char line[128];
  const int n = cg_cache_entry_header(line, sizeof line, entry.key, entry.body, entry.size);
  if (n <= 0 || (size_t)n != header || memcmp(line, data, header) != 0) abort();
  if (cg_cache_entry_parse(data, size, &entry) != CG_ENTRY_OK) abort(); /* the same answer */
  return 0;
}
