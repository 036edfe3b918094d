#!/usr/bin/env bash
# Packs Open MPI's runtime for the GPU machines, which have none: mpirun (orterun) and orted,
# Open MPI's libraries and plugin folders (lib/openmpi3, lib/pmix), its help texts and
# default parameters, and what the plugins load that glibc does not provide; writes
# .device/mpi.tar.xz and .device/mpi-env.sh (.device/ is git-ignored). warpscope-batch itself, with the
# libmpi it links, goes in the desktop bundle (bench/bundle-device.sh --headless ...).
# On the GPU machine:
#   source .device/mpi-env.sh && mpirun --allow-run-as-root -np 2 "$DESKTOP_BIN/warpscope-batch" ...
# Debian installs Open MPI under /usr with its libraries in lib/x86_64-linux-gnu/openmpi; the
# archive keeps that layout under one folder, and OPAL_PREFIX relocates it there.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
out="$root/.device"; mkdir -p "$out"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
ompi=/usr/lib/$multiarch/openmpi
[ -d "$ompi" ] || { echo "Open MPI is not installed (cmake/setup.sh installs it)" >&2; exit 1; }
stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/usr/bin" "$stage/usr/lib/$multiarch" "$stage/usr/share" "$stage/etc" "$stage/deps"
cp -L /usr/bin/orterun "$stage/usr/bin/mpirun"
cp -L /usr/bin/orted "$stage/usr/bin/orted"
cp -a "$ompi" "$stage/usr/lib/$multiarch/"
cp -a /usr/share/openmpi "$stage/usr/share/"
cp -a /etc/openmpi "$stage/etc/" 2>/dev/null || true
# The libraries the binaries and plugins load, less glibc's and those Open MPI brings itself.
skip='/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libstdc\+\+|libgcc_s)\.so'
find "$stage/usr/bin" "$stage/usr/lib" -type f \( -name '*.so*' -o -perm -u+x \) -print0 |
    xargs -0 ldd 2>/dev/null | awk '/=> \// { print $3 }' | sort -u | grep -vE "$skip" |
    grep -v "$ompi/" | while read -r lib; do cp -Ln "$lib" "$stage/deps/" 2>/dev/null || true; done
tar -C "$stage" -cf - . | xz -9 -T2 > "$out/mpi.tar.xz"
cat > "$out/mpi-env.sh" <<ENV
# Source on the GPU machine: unpacks Open MPI's runtime and puts mpirun on PATH.
mpi_root=\${TMPDIR:-/tmp}/warpscope-mpi
if [ ! -x "\$mpi_root/usr/bin/mpirun" ]; then
    mkdir -p "\$mpi_root" && tar -C "\$mpi_root" -xJf "\$(dirname "\${BASH_SOURCE[0]}")/mpi.tar.xz"
fi
export OPAL_PREFIX=\$mpi_root/usr
export OPAL_SYSCONFDIR=\$mpi_root/etc/openmpi
export PATH=\$mpi_root/usr/bin:\$PATH
export LD_LIBRARY_PATH=\$mpi_root/usr/lib/$multiarch/openmpi/lib:\$mpi_root/deps\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
ENV
du -h "$out/mpi.tar.xz" | sed 's/\t/ /'
