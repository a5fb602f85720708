# Exercises the wgslc command line: valid input -> exit 0 with .spv/.json/disassembly; invalid input -> exit 1
# with file:line:col diagnostics (source line and caret) on stderr.
# Invoked as: cmake -DWGSLC=<path> -DSRC_DIR=<shaders/wgsl> -DOUT_DIR=<dir> -P wgslc_cli_test.cmake
file(MAKE_DIRECTORY ${OUT_DIR})

execute_process(COMMAND ${WGSLC} ${SRC_DIR}/istanbul_matmul.wgsl -o ${OUT_DIR}/m.spv --reflect ${OUT_DIR}/m.json
                        --entry matmul --disasm -O
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "wgslc failed on a valid kernel (${rc}): ${err}")
endif()
if(NOT out MATCHES "OpEntryPoint GLCompute %matmul \"matmul\"")
  message(FATAL_ERROR "--disasm printed no entry point:\n${out}")
endif()
file(READ ${OUT_DIR}/m.json json)
if(NOT json MATCHES "\"kind\": \"uniform\"" OR NOT json MATCHES "\"workgroup_size\"")
  message(FATAL_ERROR "--reflect wrote unexpected JSON:\n${json}")
endif()
file(SIZE ${OUT_DIR}/m.spv spv_size)
if(spv_size LESS 100)
  message(FATAL_ERROR "output SPIR-V is too small (${spv_size} bytes)")
endif()

file(WRITE ${OUT_DIR}/bad.wgsl "fn f() {\n  let x: u32 = -1;\n  let y = ;\n}\n")
execute_process(COMMAND ${WGSLC} ${OUT_DIR}/bad.wgsl -o ${OUT_DIR}/bad.spv
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "wgslc must exit 1 on invalid input, got ${rc}")
endif()
if(NOT err MATCHES "bad.wgsl:3:11: error: expected an expression, found ';'\n  let y = ;\n          \\^")
  message(FATAL_ERROR "unexpected diagnostics:\n${err}")
endif()

file(WRITE ${OUT_DIR}/bad2.wgsl "fn f() {\n  let x: u32 = -1;\n}\nfn g() -> i32 { return 1u; }\n")
execute_process(COMMAND ${WGSLC} ${OUT_DIR}/bad2.wgsl -o ${OUT_DIR}/bad2.spv
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "bad2.wgsl:2:16: error: .*bad2.wgsl:4:24: error: ")
  message(FATAL_ERROR "expected two errors and exit 1, got ${rc}:\n${err}")
endif()

execute_process(COMMAND ${WGSLC} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "usage errors must exit 2, got ${rc}")
endif()
