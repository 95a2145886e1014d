# Regenerate the synthetic example recordings into OUT and compare them byte
# for byte with the committed ones in SRC (examples/): the files in the
# repository are what the generator's source writes. Run by ctest
# (test_examples_regenerate) as: cmake -DGEN=... -DSRC=... -DOUT=... -P this.
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${GEN} ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gen_topdown_examples failed: ${rc}")
endif()
file(GLOB made RELATIVE ${OUT} ${OUT}/*)
list(LENGTH made n)
if(n LESS 8)
  message(FATAL_ERROR "the generator wrote ${n} files, expected 8: ${made}")
endif()
foreach(f ${made})
  if(NOT EXISTS ${SRC}/${f})
    message(FATAL_ERROR "examples/${f} is not committed (run: gen_topdown_examples examples)")
  endif()
  file(SHA256 ${OUT}/${f} want)
  file(SHA256 ${SRC}/${f} have)
  if(NOT want STREQUAL have)
    message(FATAL_ERROR "examples/${f} differs from what the generator writes now "
                        "(regenerate: gen_topdown_examples examples)")
  endif()
endforeach()
message(STATUS "${n} example files match the generator")
