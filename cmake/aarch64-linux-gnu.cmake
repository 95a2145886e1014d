# cmake/aarch64-linux-gnu.cmake - cross-build tdrec for aarch64 Linux with
# Debian's cross compiler (gcc-aarch64-linux-gnu) and the arm64 multiarch
# -dev packages (libelf-dev:arm64 ...). ctest runs the test binaries through
# qemu-user (CMAKE_CROSSCOMPILING_EMULATOR). scripts/test uses it:
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(tdr_triple aarch64-linux-gnu)

set(CMAKE_C_COMPILER ${tdr_triple}-gcc)

# Libraries and headers come from the target's multiarch paths and from the
# cross toolchain's sysroot-like prefix; programs (pkg-config, python3)
# from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${tdr_triple} /usr/lib/${tdr_triple})
set(CMAKE_LIBRARY_ARCHITECTURE ${tdr_triple})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

# pkg-config reads only the arm64 .pc files: the host's /usr/lib/x86_64-linux-gnu
# ones would link amd64 libraries. The variables go through the environment,
# which FindPkgConfig's pkg-config inherits at configure time.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${tdr_triple}/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# -L /: the arm64 dynamic loader and libc of the multiarch libc6:arm64 (which
# libelf1:arm64 ... pull in), so ld.so and libc.so.6 come from one package.
# Not -L /usr/aarch64-linux-gnu: that loader (libc6-arm64-cross, an older
# build) found the multiarch libc.so.6 through ld.so.cache, and the mixed
# pair made every program that starts a thread spin in pthread_create.
find_program(TDR_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(TDR_QEMU_AARCH64) # without it the build works; ctest cannot run the tests
  set(CMAKE_CROSSCOMPILING_EMULATOR ${TDR_QEMU_AARCH64} -L /)
endif()
