# Build-time shader pipeline: every kernel source becomes SPIR-V at build time, is checked with spirv-val,
# and is embedded into the library as uint32 words. Nothing is read from disk at run time.
#
#   vkgemm_add_glsl_kernel(NAME <id> SOURCE <file.comp> [DEFINES A=1 B ...] [ENV vulkan1.2] [NO_OPT])
#   vkgemm_add_spirv_kernel(NAME <id> SPV <file.spv>)   (for producers other than glslc; the caller must attach
#                                                         the producing command to a target, e.g. spirv_<id>)
#   vkgemm_embed_kernels(TARGET <lib>)   (once, after all kernels are declared: adds the generated table)

find_program(GLSLC_EXECUTABLE glslc REQUIRED)
find_program(SPIRV_VAL_EXECUTABLE spirv-val REQUIRED)
set(VKGEMM_SPIRV_DIR ${CMAKE_BINARY_DIR}/spirv)
file(MAKE_DIRECTORY ${VKGEMM_SPIRV_DIR})
set_property(GLOBAL PROPERTY VKGEMM_KERNEL_NAMES "")

function(_vkgemm_register_spv name spv)
  set_property(GLOBAL APPEND PROPERTY VKGEMM_KERNEL_NAMES ${name})
  set_property(GLOBAL PROPERTY VKGEMM_KERNEL_SPV_${name} ${spv})
endfunction()

function(vkgemm_add_glsl_kernel)
  cmake_parse_arguments(K "NO_OPT" "NAME;SOURCE;ENV" "DEFINES;INCLUDES" ${ARGN})
  if(NOT K_ENV)
    # vulkan1.2, not 1.3: glslc's 1.3 target emits LocalSizeId, which needs maintenance4 on the device.
    set(K_ENV vulkan1.2)
  endif()
  get_filename_component(src ${K_SOURCE} ABSOLUTE)
  get_filename_component(srcdir ${src} DIRECTORY)
  set(spv ${VKGEMM_SPIRV_DIR}/${K_NAME}.spv)
  # NO_OPT: skip glslc's optimizer (spirv-opt 2023.1 crashes on cooperative-matrix code, as llama.cpp found too).
  set(opt -O)
  if(K_NO_OPT)
    set(opt -O0)
  endif()
  set(defs "")
  foreach(d ${K_DEFINES})
    list(APPEND defs -D${d})
  endforeach()
  set(incs -I${srcdir} -I${PROJECT_SOURCE_DIR}/shaders/common)
  foreach(i ${K_INCLUDES})
    list(APPEND incs -I${i})
  endforeach()
  add_custom_command(
    OUTPUT ${spv}
    COMMAND ${GLSLC_EXECUTABLE} --target-env=${K_ENV} ${opt} -fshader-stage=compute ${incs} ${defs}
            -MD -MF ${spv}.d -o ${spv} ${src}
    COMMAND ${SPIRV_VAL_EXECUTABLE} --target-env ${K_ENV} ${spv}
    DEPENDS ${src}
    DEPFILE ${spv}.d
    COMMENT "glslc + spirv-val ${K_NAME}"
    VERBATIM)
  # A target per module attaches the command to the build graph (outputs are then visible from every directory).
  add_custom_target(spirv_${K_NAME} DEPENDS ${spv})
  _vkgemm_register_spv(${K_NAME} ${spv})
endfunction()

function(vkgemm_add_spirv_kernel)
  cmake_parse_arguments(K "" "NAME;SPV" "" ${ARGN})
  _vkgemm_register_spv(${K_NAME} ${K_SPV})
endfunction()

function(vkgemm_embed_kernels)
  cmake_parse_arguments(E "" "TARGET" "" ${ARGN})
  get_property(names GLOBAL PROPERTY VKGEMM_KERNEL_NAMES)
  list(SORT names)
  set(spvs "")
  set(args "")
  foreach(n ${names})
    get_property(spv GLOBAL PROPERTY VKGEMM_KERNEL_SPV_${n})
    list(APPEND spvs ${spv})
    list(APPEND args "${n}=${spv}")
  endforeach()
  set(out ${CMAKE_BINARY_DIR}/generated/embedded_spirv.cpp)
  string(REPLACE ";" "|" joined "${args}")
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} "-DENTRIES=${joined}" -P ${PROJECT_SOURCE_DIR}/cmake/EmbedSpirv.cmake
    DEPENDS ${spvs} ${PROJECT_SOURCE_DIR}/cmake/EmbedSpirv.cmake
    COMMENT "Embedding ${CMAKE_MATCH_COUNT} SPIR-V kernels"
    VERBATIM)
  target_sources(${E_TARGET} PRIVATE ${out})
endfunction()
