#!/usr/bin/env bash
# Gather StarPU 1.3 (headers, libstarpu and every shared library it needs that a bare host may lack,
# the OpenCL ICD loader and headers, hwloc, make) into one relocatable folder, so that the StarPU
# workload (kgraph/app/runtime/starpu) builds and runs on a bare Debian/Ubuntu x86-64 host without apt.
#
#   benchmarks/starpu_bundle.sh [DEST]        # DEST defaults to .starpu (git-ignored)
#
# Run on a Debian/Ubuntu box with libstarpu-dev, ocl-icd-libopencl1, opencl-c-headers, gcc, make.
# Layout: DEST/include (starpu/1.3, hwloc*, CL), DEST/lib (sonames + link-time symlinks +
# pkgconfig/starpu-1.3.pc with a relocatable prefix), DEST/bin/make, DEST/starpu.env (the make
# variables KGRAPH_STARPU_CFLAGS / KGRAPH_STARPU_LIBS, relative to DEST), DEST/MANIFEST (what came from where,
# the highest GLIBC symbol version needed). benchmarks/starpu_device.sh uses it on the GPU host.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${1:-$REPO/.starpu}"
SRC="$REPO/kgraph/app/runtime/starpu"
MODEL="$(mktemp -d)"   # only kgraph_model.h is read (for gcc -M): export the shipped head to C there
"${PYTHON:-python3}" -m kgraph.app.cli.main export --format c --out "$MODEL" >/dev/null || { echo "starpu_bundle: kgraph export failed" >&2; exit 1; }
# Libraries every host with a C toolchain has (glibc, libgcc_s, libstdc++): never bundled.
BASE_RE='^(linux-vdso|ld-linux-x86-64|libc|libm|libpthread|libdl|librt|libresolv|libutil|libgcc_s|libstdc\+\+)\.so'

die() { echo "starpu_bundle: $*" >&2; exit 1; }
for tool in gcc ldd objdump dpkg pkg-config make; do
  command -v "$tool" >/dev/null || die "$tool is not installed (needs a Debian/Ubuntu box with a C toolchain)"
done
pkg-config --exists starpu-1.3 || die "libstarpu-dev (pkg-config starpu-1.3) is not installed: apt-get install -y libstarpu-dev"
STARPU_SO="$(pkg-config --variable=libdir starpu-1.3)/libstarpu-1.3.so"
[ -e "$STARPU_SO" ] || die "$STARPU_SO not found"
OPENCL_SO="$(gcc -print-file-name=libOpenCL.so)"
[ -e "$OPENCL_SO" ] || die "libOpenCL.so (ocl-icd-opencl-dev / ocl-icd-libopencl1) not found"

rm -rf "$DEST"
mkdir -p "$DEST/include" "$DEST/lib/pkgconfig" "$DEST/bin"
: > "$DEST/MANIFEST"

# Headers: every header the workload's sources include that does not come with libc/gcc/kernel
# headers; the whole header set of each such package is copied (starpu, hwloc, OpenCL).
CFLAGS_ALL="-std=c99 -D_POSIX_C_SOURCE=200809L -I$MODEL -I$SRC $(pkg-config --cflags starpu-1.3) -DCL_TARGET_OPENCL_VERSION=120"
packages=$(for f in "$SRC"/*.c; do gcc -M $CFLAGS_ALL -DKGRAPH_KERNEL_DIR='"k"' "$f"; done | tr ' \\' '\n\n' |
  grep '^/usr/include/' | sort -u | xargs -r dpkg -S 2>/dev/null | cut -d: -f1 | sort -u |
  grep -Ev '^(libc6-dev|linux-libc-dev|libgcc-[0-9]+-dev|libc-dev-bin)$' || true)
[ -n "$packages" ] || die "found no StarPU headers through gcc -M"
MULTIARCH="$(gcc -print-multiarch)"
for pkg in $packages; do
  dpkg -L "$pkg" | grep '^/usr/include/.' | while read -r path; do
    [ -f "$path" ] || continue
    rel="${path#/usr/include/}"
    rel="${rel#$MULTIARCH/}"   # multiarch headers (hwloc/autogen/config.h) join the others
    mkdir -p "$DEST/include/$(dirname "$rel")"
    cp -L "$path" "$DEST/include/$rel"
  done
  echo "headers $pkg $(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null)" >> "$DEST/MANIFEST"
done

# Shared libraries: libstarpu and libOpenCL (the ICD loader) with every non-base library they need,
# copied under their soname (ldd resolves the whole closure).
copy_lib() {  # $1 = soname, $2 = resolved path
  [ -e "$DEST/lib/$1" ] && return 0
  cp -L "$2" "$DEST/lib/$1"
  chmod u+w "$DEST/lib/$1"
  local real; real="$(readlink -f "$2")"
  echo "lib $1 $( (dpkg -S "$real" || dpkg -S "${real#/usr}" || dpkg -S "/usr$real") 2>/dev/null | cut -d: -f1 | head -1)" >> "$DEST/MANIFEST"
}
for so in "$STARPU_SO" "$OPENCL_SO"; do
  real="$(readlink -f "$so")"
  soname="$(objdump -p "$real" | awk '/SONAME/ {print $2}')"
  copy_lib "$soname" "$real"
  ldd "$real" | awk '/=>/ && $3 ~ /^\// {print $1, $3}' | while read -r name path; do
    [[ "$name" =~ $BASE_RE ]] || copy_lib "$name" "$path"
  done
done
# Link-time names (-lstarpu-1.3 -lhwloc -lOpenCL) point at the sonames.
(cd "$DEST/lib" && ln -sf libstarpu-1.3.so.* libstarpu-1.3.so && ln -sf libhwloc.so.* libhwloc.so &&
 ln -sf libOpenCL.so.1 libOpenCL.so)

# make (libc only) for hosts without it; starpu_device.sh appends DEST/bin to PATH, so a host make wins.
cp -L "$(command -v make)" "$DEST/bin/make"

# Make variables for kgraph/app/runtime/starpu/Makefile (it takes KGRAPH_STARPU_CFLAGS / _LIBS from the
# environment instead of pkg-config); @BUNDLE@ is replaced by the bundle's absolute path at use.
cat > "$DEST/starpu.env" <<'EOF'
KGRAPH_STARPU_CFLAGS=-I@BUNDLE@/include/starpu/1.3 -I@BUNDLE@/include
KGRAPH_STARPU_LIBS=-L@BUNDLE@/lib -Wl,--disable-new-dtags -Wl,-rpath,@BUNDLE@/lib -lstarpu-1.3 -lpthread -lhwloc -lOpenCL
EOF
# pkg-config file for people with pkg-config: pcfiledir makes it relocatable.
cat > "$DEST/lib/pkgconfig/starpu-1.3.pc" <<EOF
prefix=\${pcfiledir}/../..
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: starpu
Description: StarPU $(pkg-config --modversion starpu-1.3), bundled by benchmarks/starpu_bundle.sh
Version: $(pkg-config --modversion starpu-1.3)
Cflags: -I\${includedir}/starpu/1.3 -I\${includedir}
Libs: -L\${libdir} -Wl,--disable-new-dtags -Wl,-rpath,\${libdir} -lstarpu-1.3 -lpthread -lhwloc
EOF

# The newest glibc symbol version any bundled binary needs: the host's glibc must be at least this.
glibc_max=$(for f in "$DEST"/lib/*.so.* "$DEST/bin/make"; do objdump -T "$f"; done | grep -o 'GLIBC_[0-9.]*' |
  sort -u -t. -k1,1 -k2,2n -k3,3n | tail -1)
echo "glibc_needed $glibc_max" >> "$DEST/MANIFEST"
echo "built_on $(. /etc/os-release && echo "$PRETTY_NAME") $(ldd --version | head -1 | awk '{print $NF}')" >> "$DEST/MANIFEST"
echo "starpu_bundle: $DEST ($(du -sh "$DEST" | cut -f1)), needs glibc >= ${glibc_max#GLIBC_}"
