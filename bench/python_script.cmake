# A copy of one of bench/'s Python scripts whose first line names the interpreter the build
# chose (CLGAUGE_PYTHON), so that the installed tool runs with the Python whose packages
# (python3-matplotlib, python3-torch) the tests found.
#   cmake -DIN=bench/plot.py -DOUT=build/clgauge-plot -DPYTHON=/usr/bin/python3 -P python_script.cmake
file(READ "${IN}" text)
string(REGEX REPLACE "^#![^\n]*\n" "" text "${text}")
get_filename_component(name "${OUT}" NAME)
get_filename_component(dir "${OUT}" DIRECTORY)
set(staging "${OUT}.staging")
file(WRITE "${staging}/${name}" "#!${PYTHON}\n${text}")
# file(COPY) sets the mode; file(CHMOD) would need CMake 3.19
file(COPY "${staging}/${name}" DESTINATION "${dir}"
     FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ
                      WORLD_EXECUTE)
file(REMOVE_RECURSE "${staging}")
