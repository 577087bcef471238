# Makes a binary cache in which no entry can be stored: for every entry of FROM (a filled cache),
# a directory of the same name in TO, where the entry would go.
#   cmake -DFROM=dir -DTO=dir -P cache_block.cmake
# Prints CLGAUGE_TEST_SKIPPED when FROM holds no entry (the run that fills it found no device).
file(GLOB entries "${FROM}/*.bin")
if(NOT entries)
  message("CLGAUGE_TEST_SKIPPED: no entry in ${FROM}")
  return()
endif()
file(REMOVE_RECURSE "${TO}")
foreach(entry ${entries})
  get_filename_component(name "${entry}" NAME)
  file(MAKE_DIRECTORY "${TO}/${name}")
endforeach()
