#!/usr/bin/env bash
# Build dicepod's MicroPython: v1.28.0's ports/rp2 for the Pico (BOARD RPI_PICO) with two
# changes, a 192 KiB ROMFS partition and /rom/m run at power-on instead of main.py, then write
# the two patches that turn the stock build into it (README.md beside this file says why).
# Usage: hardware/micropython/build.sh SOURCES OUT
#   SOURCES holds git repositories (bare or not) named micropython, pico-sdk, tinyusb, mbedtls,
#   micropython-lib and picotool (the commits MicroPython v1.28.0 pins; picotool 2.2.0).
#   OUT receives the build tree, dicepod-micropython-v1.28.0.uf2 and .elf.
# Toolchain (Debian): gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib
#   cmake build-essential. About 3 minutes on 2 cores; the build is byte-identical between runs.
# The stock build to patch from is ../shared/rp2 (or $DICEPOD_RP2); the patches need the
# project's venv (bsdiff4): run ./dev setup first.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(readlink -f "$1"); OUT=$(readlink -f "$2")
ROMFS_KIB=192  # must match ROMFS_BYTES in host/dicepod_host/pico/__init__.py
mkdir -p "$OUT"; cd "$OUT"
rm -rf micropython && mkdir micropython
git -C "$SRC/micropython" archive v1.28.0 | tar -x -C micropython
pin() { git -C "$SRC/micropython" ls-tree v1.28.0 "lib/$1" | awk '{print $3}'; }
sub() {  # name [a path no RPI_PICO build reads]
  mkdir -p "micropython/lib/$1"
  git -C "$SRC/$1" archive "$(pin "$1")" -- . ${2:+":(exclude)$2"} | tar -x -C "micropython/lib/$1"
}
sub pico-sdk src/rp2350/hardware_regs/RP2350.svd
sub tinyusb
sub mbedtls tests/suites/test_suite_psa_crypto_op_fail.generated.data
sub micropython-lib
if [ ! -x tools/picotool-install/picotool/picotool ]; then  # pico-sdk 2.x writes the UF2 with it
  rm -rf tools/picotool-src tools/picotool-build; mkdir -p tools/picotool-src
  git -C "$SRC/picotool" archive 2.2.0 | tar -x -C tools/picotool-src
  cmake -S tools/picotool-src -B tools/picotool-build -DPICO_SDK_PATH="$OUT/micropython/lib/pico-sdk" \
        -DPICOTOOL_NO_LIBUSB=1 -DPICOTOOL_FLAT_INSTALL=1 -DCMAKE_INSTALL_PREFIX="$OUT/tools/picotool-install"
  make -C tools/picotool-build -j2 && make -C tools/picotool-build install
fi
export PICOTOOL_FETCH_FROM_GIT_PATH="$OUT/tools/picotool-install"
# The board: RPI_PICO's files, plus the ROMFS partition (placed by the port just below the
# file system, which stays where the stock build has it: 1,408 KiB from 0xA0000).
BOARD=micropython/ports/rp2/boards/DICEPOD
mkdir -p "$BOARD"
cp micropython/ports/rp2/boards/RPI_PICO/* "$BOARD/"
echo "#define MICROPY_HW_ROMFS_BYTES (${ROMFS_KIB} * 1024)" >> "$BOARD/mpconfigboard.h"
# The program run at power-on: /rom/m (the app in the partition), not the file system's main.py,
# so one .uf2 holding the partition makes a dicepod without writing the file system. A name of
# the same length leaves every other byte of the build where it was.
sed -i 's|pyexec_file_if_exists("main.py")|pyexec_file_if_exists("/rom/m")|' micropython/ports/rp2/main.c
grep -q 'pyexec_file_if_exists("/rom/m")' micropython/ports/rp2/main.c
make -C micropython/mpy-cross -j2
make -C micropython/ports/rp2 BOARD=DICEPOD -j2
cp micropython/ports/rp2/build-DICEPOD/firmware.uf2 dicepod-micropython-v1.28.0.uf2
arm-none-eabi-objcopy --strip-debug micropython/ports/rp2/build-DICEPOD/firmware.elf \
  dicepod-micropython-v1.28.0.elf
cd "$HERE/../.." && .venv/bin/python -m dicepod_host.uf2 write "$OUT"
