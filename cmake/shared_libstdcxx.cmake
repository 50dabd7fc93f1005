# recurlab_require_shared_libstdcxx(): stops the configure when the C++ compiler, with the
# project's link flags, puts a private static copy of libstdc++ into an executable or a module
# instead of linking the shared one (a g++ wrapper that adds -static-libstdc++ does that: one is
# CXX on some GPU nodes). LibTorch, HDF5 and sentencepiece use the shared libstdc++, so such a
# program runs two C++ runtimes, and whatever state one set up (locales, streams) the other lacks:
# on an H200 node every task died with SIGSEGV after its first unit, and the sentencepiece module
# in its static constructors under dlopen(RTLD_DEEPBIND).
#
# It links a small probe (cmake/shared_libstdcxx_probe.cpp) as an executable and as a module, with CMAKE_CXX_COMPILER and
# CMAKE_CXX_FLAGS plus CMAKE_EXE_LINKER_FLAGS or CMAKE_MODULE_LINKER_FLAGS, and requires that
# each one binds its C++ runtime calls to libstdc++.so: its version needs (readelf -V) name that
# file. A NEEDED entry alone would not do: with --no-as-needed it is written even when every
# symbol came from a static copy.
function(recurlab_require_shared_libstdcxx)
  set(dir "${CMAKE_BINARY_DIR}/CMakeFiles/shared-libstdcxx-probe")
  file(MAKE_DIRECTORY "${dir}")
  set(probe "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/shared_libstdcxx_probe.cpp")
  set(readelf "${CMAKE_READELF}")
  if(NOT readelf)
    find_program(RECURLAB_READELF readelf)
    set(readelf "${RECURLAB_READELF}")
  endif()
  if(NOT readelf)
    message(FATAL_ERROR "no readelf (binutils) to check how the C++ compiler links libstdc++")
  endif()
  foreach(kind executable module)
    if(kind STREQUAL "executable")
      set(link_flags "${CMAKE_EXE_LINKER_FLAGS}")
      set(kind_args)
      set(out "${dir}/probe")
    else()
      set(link_flags "${CMAKE_MODULE_LINKER_FLAGS}")
      set(kind_args -shared -fPIC)
      set(out "${dir}/probe.so")
    endif()
    separate_arguments(flags UNIX_COMMAND "${CMAKE_CXX_FLAGS} ${link_flags}")
    execute_process(
      COMMAND "${CMAKE_CXX_COMPILER}" ${kind_args} ${flags} "${probe}" -o "${out}"
      RESULT_VARIABLE failed OUTPUT_VARIABLE output ERROR_VARIABLE output)
    if(failed)
      message(FATAL_ERROR "${CMAKE_CXX_COMPILER} could not link a probe ${kind} "
        "(${probe}):\n${output}")
    endif()
    execute_process(COMMAND "${readelf}" -V "${out}"
      RESULT_VARIABLE failed OUTPUT_VARIABLE versions ERROR_VARIABLE versions)
    if(failed)
      message(FATAL_ERROR "${readelf} -V ${out} failed:\n${versions}")
    endif()
    if(NOT versions MATCHES "File: libstdc\\+\\+\\.so")
      message(FATAL_ERROR "The C++ compiler ${CMAKE_CXX_COMPILER} links libstdc++ statically: a "
        "probe ${kind} linked with it (${out}) takes no symbol from libstdc++.so. LibTorch and the "
        "other libraries recurlab uses load the shared libstdc++, and two C++ runtimes in one "
        "process crash (SIGSEGV). Configure with a compiler that links the shared one, e.g. "
        "CXX=/usr/bin/g++ (a wrapper that adds -static-libstdc++ does not); "
        "scripts/gpu-run.sh picks one by itself.")
    endif()
  endforeach()
  message(STATUS "C++ runtime: executables and modules load the shared libstdc++ "
    "(${CMAKE_CXX_COMPILER})")
endfunction()
