# Project-wide warning set, applied per target so that third-party code is not affected.
function(vkgemm_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wno-missing-field-initializers)
endfunction()
