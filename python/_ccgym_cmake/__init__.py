"""CMake prefix of ccgym (the "cmake.prefix" entry point of pyproject.toml).

scikit-build-core imports an entry point's module to find its directory; this
empty top-level package is it, so that a CMake build in an environment with
ccgym installed does not import ccgym itself (or rebuild an editable one in
the middle of a build). Its ccgymConfig.cmake forwards to ccgym/cmake."""
