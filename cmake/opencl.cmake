# OpenCL backend: included by CMakeLists.txt after find_package(OpenCL) succeeded.
# Sets CATENA_HAVE_OPENCL, CATENA_OPENCL_SOURCES (host files + the generated file embedding the kernels)
# and CATENA_OPENCL_LIBS (the ICD loader, never a vendor library, and clBLAST).

# clBLAST: Debian's libclblast-dev ships a CMake package; fall back to the plain library + header.
# Either way the link item is `clblast` (an imported target, or the bare library name on the linker's path),
# so the exported package holds no absolute path.
set(CATENA_CLBLAST_PACKAGE OFF)
find_package(CLBlast QUIET CONFIG)
if(TARGET clblast)
  set(CATENA_CLBLAST_LIB clblast)
  set(CATENA_CLBLAST_PACKAGE ON)
else()
  find_library(CATENA_CLBLAST_LIBRARY NAMES clblast)
  find_path(CATENA_CLBLAST_INCLUDE NAMES clblast_c.h)
  if(CATENA_CLBLAST_LIBRARY AND CATENA_CLBLAST_INCLUDE)
    set(CATENA_CLBLAST_LIB clblast)
    include_directories(${CATENA_CLBLAST_INCLUDE})
  endif()
endif()

if(NOT CATENA_CLBLAST_LIB)
  message(WARNING "catena: clBLAST not found (libclblast-dev); building without the OpenCL backend")
  return()
endif()

# Kernel source embedded at build time: kernels/catena.cl with its #include "ctn_*.h" resolved textually.
file(GLOB CATENA_KERNEL_FILES ${CMAKE_CURRENT_SOURCE_DIR}/kernels/*.cl ${CMAKE_CURRENT_SOURCE_DIR}/kernels/*.h)
set(CATENA_KERNEL_EMBED ${CMAKE_CURRENT_BINARY_DIR}/catena_kernels.c)
add_custom_command(
  OUTPUT ${CATENA_KERNEL_EMBED}
  COMMAND ${CMAKE_COMMAND} -DKERNEL_DIR=${CMAKE_CURRENT_SOURCE_DIR}/kernels -DOUTPUT=${CATENA_KERNEL_EMBED}
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/embed_kernels.cmake
  DEPENDS ${CATENA_KERNEL_FILES} ${CMAKE_CURRENT_SOURCE_DIR}/cmake/embed_kernels.cmake
  COMMENT "Embedding OpenCL kernels"
  VERBATIM)

set(CATENA_HAVE_OPENCL ON)
set(CATENA_OPENCL_SOURCES
  host/opencl/opencl_errors.c
  host/opencl/opencl_cache.c
  host/opencl/opencl_context.c
  host/opencl/opencl_devices.c
  host/opencl/backend_opencl.c
  host/opencl/opencl_launch.c
  host/opencl/opencl_buffers.c
  host/opencl/opencl_profile.c
  host/opencl/opencl_stages.c
  host/opencl/opencl_project.c
  host/opencl/opencl_snapshot.c
  host/opencl/opencl_bandwidth.c
  host/opencl/opencl_cg.c
  host/opencl/opencl_direct.c # Exact solver for chains
  host/opencl/opencl_forest.c # Exact solver for trees (forests) of joints
  host/opencl/opencl_schur.c # Loop closers through their Schur complement
  host/opencl/opencl_rattle.c # The RATTLE integrator's stages
  ${CATENA_KERNEL_EMBED})
set(CATENA_OPENCL_LIBS OpenCL::OpenCL ${CATENA_CLBLAST_LIB})
