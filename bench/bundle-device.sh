#!/usr/bin/env bash
# Packs binaries for the GPU machines with ../shared/device/bundle-desktop.sh, then leaves out
# of the desktop bundle the libraries the GPU machines (Ubuntu 24.04, newer than Debian 12,
# so the same sonames are backward compatible) already have: mostly what cfitsio's libcurl
# pulls in (TLS, Kerberos, LDAP, SSH), which Warpscope never uses but the loader needs, and
# the base X, OpenSSL and compression libraries. With them the bundle is over the 64 MiB a
# call can carry. NVRTC (over 100 MiB) is left out too: the GPU machines have the CUDA toolkit,
# and a run adds its lib64 to LD_LIBRARY_PATH. Same arguments as bundle-desktop.sh.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
"$root/../shared/device/bundle-desktop.sh" "$@"
stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT
tar -C "$stage" -xJf "$root/.device/desktop.tar.xz"
find "$stage/lib" -maxdepth 1 -name 'libnvrtc*' -delete
if [ "${1:-}" = --headless ]; then
    tar -C "$stage" -cf - . | xz -9 -T2 > "$root/.device/desktop.tar.xz"
    exit 0
fi
system='/lib(curl-gnutls|gnutls|nettle|hogweed|p11-kit|idn2|unistring|tasn1|krb5|krb5support|k5crypto|gssapi_krb5|lber|ldap|sasl2|ssh|rtmp|psl|brotli(common|dec)|crypto|ssl|systemd|zstd|X11|xcb|png16|pcre2-8|gcrypt)\.so'
find "$stage/lib" -maxdepth 1 | grep -E "$system" | xargs -r rm -f
tar -C "$stage" -cf - . | xz -9 -T2 > "$root/.device/desktop.tar.xz"
du -ch "$root"/.device/*.tar.xz "$root"/.device/gl | tail -1 | sed 's/total/in .device/'
