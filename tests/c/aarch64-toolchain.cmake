# Cross build of tests/c for AArch64 on an x86-64 Debian/Ubuntu host
# (gcc-aarch64-linux-gnu; run the programs with qemu-aarch64-static -L
# /usr/aarch64-linux-gnu, from qemu-user-static). docs/exactness.md.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L /usr/aarch64-linux-gnu)
