# Body and joint handles are distinct types: tests/abi/handle_types.c compiles as written and fails to
# compile, naming the argument, when it passes a joint handle to a function that takes a body handle.
# Run as: cmake -DCC=<compiler> -DSRC=<handle_types.c> -DINC=<include dir> -P handle_types.cmake
execute_process(COMMAND ${CC} -std=c11 -fsyntax-only -Wall -Werror -I${INC} ${SRC}
                RESULT_VARIABLE right_rc OUTPUT_VARIABLE right_out ERROR_VARIABLE right_out)
if(NOT right_rc EQUAL 0)
  message(FATAL_ERROR "the correct use of the handles does not compile:\n${right_out}")
endif()
execute_process(COMMAND ${CC} -std=c11 -fsyntax-only -DCTN_WRONG_KIND -I${INC} ${SRC}
                RESULT_VARIABLE wrong_rc OUTPUT_VARIABLE wrong_out ERROR_VARIABLE wrong_out)
if(wrong_rc EQUAL 0)
  message(FATAL_ERROR "a joint handle passed as a body handle compiled")
endif()
if(NOT wrong_out MATCHES "ctn_body_get_state")
  message(FATAL_ERROR "the wrong handle kind failed to compile, but not at the call:\n${wrong_out}")
endif()
message(STATUS "joint handle as body handle refused by the compiler:\n${wrong_out}")
