# Forwards to the version file installed with the ccgym package (see
# __init__.py); an editable install of ccgym has none and takes any request.
if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/../ccgym/cmake/ccgymConfigVersion.cmake")
  include("${CMAKE_CURRENT_LIST_DIR}/../ccgym/cmake/ccgymConfigVersion.cmake")
else()
  set(PACKAGE_VERSION 0)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
endif()
