# kvscope_set_warnings(target): one place for the warning policy of every target we own.
function(kvscope_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
    -Wno-sign-conversion -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual)
  # GCC 12 reports -Wrestrict inside libstdc++'s own string code at -O2 (GCC bug 105329).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  if(KVSCOPE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(KVSCOPE_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=${KVSCOPE_SANITIZE} -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=${KVSCOPE_SANITIZE})
    # UBSan prints and carries on by default: a finding must fail the test that reached it.
    if(KVSCOPE_SANITIZE MATCHES "undefined")
      target_compile_options(${target} PRIVATE -fno-sanitize-recover=undefined)
    endif()
  endif()
endfunction()
