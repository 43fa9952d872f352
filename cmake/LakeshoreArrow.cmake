# Arrow C++ and Parquet C++ 25.0.1: a system Arrow if find_package finds one, else the libraries
# inside the pyarrow==25.0.1 wheel (imported targets by full path, rpath to the pyarrow folder).
add_library(lakeshore::arrow INTERFACE IMPORTED)

find_package(Arrow 25.0.1 EXACT QUIET CONFIG)
find_package(Parquet QUIET CONFIG)
if(Arrow_FOUND AND Parquet_FOUND)
  message(STATUS "Lakeshore: system Arrow ${Arrow_VERSION}")
  target_link_libraries(lakeshore::arrow INTERFACE Arrow::arrow_shared Parquet::parquet_shared)
  if(TARGET ArrowCompute::arrow_compute_shared)
    target_link_libraries(lakeshore::arrow INTERFACE ArrowCompute::arrow_compute_shared)
  endif()
  return()
endif()

if(NOT Python_EXECUTABLE)
  find_package(Python 3.9 COMPONENTS Interpreter REQUIRED)
endif()
execute_process(
  COMMAND ${Python_EXECUTABLE} -c
    "import pyarrow as pa; print(pa.__version__); print(pa.get_include()); print(pa.get_library_dirs()[0])"
  OUTPUT_VARIABLE _pa_out RESULT_VARIABLE _pa_rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _pa_rc EQUAL 0)
  message(FATAL_ERROR "Lakeshore: no system Arrow and `import pyarrow` failed with ${Python_EXECUTABLE}; "
                      "install pyarrow==25.0.1 into that interpreter")
endif()
string(REPLACE "\n" ";" _pa_lines "${_pa_out}")
list(GET _pa_lines 0 PYARROW_VERSION)
list(GET _pa_lines 1 PYARROW_INCLUDE_DIR)
list(GET _pa_lines 2 PYARROW_LIB_DIR)
if(NOT PYARROW_VERSION VERSION_EQUAL 25.0.1)
  message(FATAL_ERROR "Lakeshore needs pyarrow 25.0.1, found ${PYARROW_VERSION}")
endif()
message(STATUS "Lakeshore: Arrow from the pyarrow ${PYARROW_VERSION} wheel at ${PYARROW_LIB_DIR}")
set(LAKESHORE_PYARROW_LIB_DIR ${PYARROW_LIB_DIR} CACHE INTERNAL "")

foreach(_lib arrow parquet arrow_compute arrow_dataset arrow_acero)
  set(_path ${PYARROW_LIB_DIR}/lib${_lib}.so.2500)
  if(NOT EXISTS ${_path})
    message(FATAL_ERROR "Lakeshore: ${_path} is missing from the pyarrow wheel")
  endif()
  add_library(lakeshore::lib${_lib} SHARED IMPORTED)
  set_target_properties(lakeshore::lib${_lib} PROPERTIES
    IMPORTED_LOCATION ${_path} IMPORTED_NO_SONAME OFF
    INTERFACE_INCLUDE_DIRECTORIES ${PYARROW_INCLUDE_DIR})
  target_link_libraries(lakeshore::arrow INTERFACE lakeshore::lib${_lib})
endforeach()
# Binaries built here find the wheel's libraries at run time.
set(CMAKE_BUILD_RPATH ${PYARROW_LIB_DIR})
target_link_options(lakeshore::arrow INTERFACE "-Wl,-rpath,${PYARROW_LIB_DIR}")
