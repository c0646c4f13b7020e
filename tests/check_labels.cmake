# SPDX-License-Identifier: Apache-2.0
# Fails when a test in the build tree has no label or more than one of unit, city and e2e, so
# `ctest -L unit` (or city, e2e) never silently skips a test, and names those tests.
#   cmake -DCTEST=<ctest> -DBUILD_DIR=<build dir> -P check_labels.cmake
cmake_minimum_required(VERSION 3.25)

# The names of the tests `ctest -N <args>` lists.
function(list_tests out)
  execute_process(COMMAND ${CTEST} --test-dir ${BUILD_DIR} -N ${ARGN}
                  OUTPUT_VARIABLE text RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ctest -N ${ARGN} failed (${rc}): ${err}")
  endif()
  string(REGEX MATCHALL "Test +#[0-9]+: [^\n]*" lines "${text}")
  set(names "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^Test +#[0-9]+: " "" name "${line}")
    list(APPEND names "${name}")
  endforeach()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

list_tests(all)
list_tests(unlabelled -LE "^(unit|city|e2e)$")
set(labelled "")
foreach(label unit city e2e)
  list_tests(with_label -L "^${label}$")
  list(APPEND labelled ${with_label})
endforeach()

list(LENGTH all total)
list(LENGTH labelled labels)
set(bad "")
foreach(name IN LISTS unlabelled)
  string(APPEND bad "\n  ${name}: none of unit, city, e2e")
endforeach()
if(NOT labels EQUAL total OR bad)
  set(seen "")
  foreach(name IN LISTS labelled)
    if(name IN_LIST seen)
      string(APPEND bad "\n  ${name}: more than one of unit, city, e2e")
    endif()
    list(APPEND seen "${name}")
  endforeach()
endif()
if(bad)
  message(FATAL_ERROR "every test needs exactly one of the labels unit, city, e2e:${bad}")
endif()
message(STATUS "all ${total} tests have exactly one of unit, city, e2e")
