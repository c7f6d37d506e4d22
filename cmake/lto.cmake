# Link-time optimization of the programs in Release builds. The engine's per-block path runs
# through block_manager, paged_cache, block_pool and prefix_cache, each in its own source file;
# inlining across them made `simulate` on the Azure conversation hour 6% faster. Core's objects
# are built fat (machine code beside the LTO bytecode) so that the test programs, which are not
# LTO-linked, can link them as plain objects. GCC's linker plugin would still run LTO over every
# fat object it sees, so those programs link with -fno-lto: a GUI test's link took 23 s with it,
# 0.8 s without, and the test programs' links were a quarter of a whole CI build.
# Sanitizer and Debug builds skip LTO.
option(KVSCOPE_LTO "Link-time optimization of kvscope-cli and kvscope in Release builds" ON)
set(KVSCOPE_LTO_ACTIVE OFF)
if(KVSCOPE_LTO AND CMAKE_BUILD_TYPE STREQUAL "Release" AND KVSCOPE_SANITIZE STREQUAL ""
   AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  include(CheckIPOSupported)
  check_ipo_supported(RESULT kvscope_lto_supported OUTPUT kvscope_lto_why LANGUAGES CXX)
  if(kvscope_lto_supported)
    set(KVSCOPE_LTO_ACTIVE ON)
    # Every program that kvscope_lto() did not mark links the fat objects' machine code as is.
    add_link_options("$<$<NOT:$<BOOL:$<TARGET_PROPERTY:INTERPROCEDURAL_OPTIMIZATION>>>:-fno-lto>")
  else()
    message(STATUS "kvscope: no link-time optimization: ${kvscope_lto_why}")
  endif()
endif()

# kvscope_lto(TARGET [FAT]): optimizes TARGET at link time when KVSCOPE_LTO_ACTIVE; FAT keeps
# machine code in its objects for consumers that are not LTO-linked.
function(kvscope_lto target)
  if(NOT KVSCOPE_LTO_ACTIVE)
    return()
  endif()
  set_property(TARGET ${target} PROPERTY INTERPROCEDURAL_OPTIMIZATION ON)
  if("FAT" IN_LIST ARGN)
    target_compile_options(${target} PRIVATE -ffat-lto-objects)
  endif()
endfunction()
