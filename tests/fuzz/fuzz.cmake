# (included by tests/CMakeLists.txt). For each fuzz target T in {scene, checkpoint}:
#   fuzz_replay_T   the target's entry point fed every file of tests/fuzz/crashes/T/ and tests/fuzz/T/
#                   by a small main() (no libFuzzer): a CTest test in every build, sanitizers included;
#   fuzz_T          the libFuzzer executable, only with -DCATENA_FUZZ=ON (clang).
set(CATENA_FUZZ_DIR ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
foreach(target scene checkpoint)
  if(target STREQUAL "scene" AND NOT CATENA_HAVE_CJSON)
    continue()
  endif()
  add_executable(fuzz_replay_${target} ${CATENA_FUZZ_DIR}/fuzz_replay.c ${CATENA_FUZZ_DIR}/fuzz_${target}.c)
  target_link_libraries(fuzz_replay_${target} PRIVATE catena_static m)
  add_test(NAME fuzz_replay_${target}
           COMMAND fuzz_replay_${target} ${CATENA_FUZZ_DIR}/crashes/${target} ${CATENA_FUZZ_DIR}/${target})
  set_tests_properties(fuzz_replay_${target} PROPERTIES ENVIRONMENT "CATENA_QUIET=1" LABELS fuzz)
  if(CATENA_FUZZ)
    add_executable(fuzz_${target} ${CATENA_FUZZ_DIR}/fuzz_${target}.c)
    target_link_libraries(fuzz_${target} PRIVATE catena_static m)
    target_link_options(fuzz_${target} PRIVATE -fsanitize=fuzzer)
  endif()
endforeach()
