# Forwards to the config installed with the ccgym package (see __init__.py);
# in an editable install of ccgym (no installed config) the source tree's
# headers.
if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/../ccgym/cmake/ccgymConfig.cmake")
  include("${CMAKE_CURRENT_LIST_DIR}/../ccgym/cmake/ccgymConfig.cmake")
else()
  get_filename_component(ccgym_INCLUDE_DIR "${CMAKE_CURRENT_LIST_DIR}/../../include" ABSOLUTE)
  if(NOT TARGET ccgym::headers)
    add_library(ccgym::headers INTERFACE IMPORTED)
    set_target_properties(ccgym::headers PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${ccgym_INCLUDE_DIR}"
      INTERFACE_COMPILE_OPTIONS
        "$<IF:$<C_COMPILER_ID:MSVC>,/fp:precise,-ffp-contract=off;-fno-fast-math>")
  endif()
  set(ccgym_FOUND TRUE)
endif()
