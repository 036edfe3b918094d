#!/usr/bin/env bash
# --export-field without a display: the file as NumPy reads it (shape, dtype, the distance
# field against the haversine formula computed here, a kernel's values and its NaN kept), and
# the exit codes of bad values (2) and failed work (1). Skipped (77) without NumPy.
set -u
app=$1
python=""
for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c 'import numpy' 2>/dev/null; then
        python=$candidate
        break
    fi
done
if [ -z "$python" ]; then
    echo "SKIP: no python3 with NumPy to read the .npy files (Debian: apt install python3-numpy)"
    exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
expect() { # expected-exit-code expected-text args...
    local code=$1 text=$2; shift 2
    local out rc
    out=$(env -u DISPLAY QT_QPA_PLATFORM=none "$app" --backend cpu "$@" 2>&1); rc=$?
    if [ "$rc" != "$code" ] || ! grep -qF -- "$text" <<<"$out"; then
        echo "FAIL: warpscope $* -> exit $rc (want $code), output: $out"
        fails=$((fails + 1))
    else
        echo "ok: warpscope $* -> $rc"
    fi
}
check() { # python code over f, the file's array
    if ! "$python" -c "import math, numpy; f = numpy.load('$1'); $2"; then
        echo "FAIL: $1 does not hold what it should"
        fails=$((fails + 1))
    fi
}

# The distance field: 3 rows from 10 to 20 degrees north, 4 columns from 30 to 45 east.
mesh=(--lat-min 10 --lat-max 20 --lon-min 30 --lon-max 45 --nx 4 --ny 3 --ref 15,40
      --ref -5,44 --radius 6371 --precision float64)
expect 0 "Saved $dir/field.npy" "${mesh[@]}" --export-field "$dir/field.npy"
check "$dir/field.npy" "
assert f.shape == (3, 4) and f.dtype == numpy.dtype('<f4') and not numpy.isfortran(f), (f.shape, f.dtype)
def haversine(a, b, c, d):
    p, q, l = map(math.radians, (a, c, d - b))
    h = math.sin((q - p) / 2) ** 2 + math.cos(p) * math.cos(q) * math.sin(l / 2) ** 2
    return 2 * 6371 * math.asin(math.sqrt(h))
for r in range(3):
    for c in range(4):
        lat, lon = 10 + 5 * r, 30 + 5 * c
        want = min(haversine(lat, lon, 15, 40), haversine(lat, lon, -5, 44))
        assert abs(f[r, c] - want) <= 1e-5 * want + 1e-3, (r, c, f[r, c], want)
assert f[1, 2] == 0  # the reference itself
assert open('$dir/field.npy', 'rb').read(8) == b'\x93NUMPY\x01\x00'
"

# The teaching kernel with one 2 x 2 block: the nodes it covers are the distance field's, the
# others NaN.
expect 0 "Saved $dir/lesson.npy" "${mesh[@]}" --block 2,2,1 --grid 1,1,1 \
    --export-field "$dir/lesson.npy"
check "$dir/lesson.npy" "
d = numpy.load('$dir/field.npy')
assert f.shape == (3, 4) and (f[:2, :2] == d[:2, :2]).all(), (f, d)
assert numpy.isnan(f[2]).all() and numpy.isnan(f[:, 2:]).all(), f
"

# A kernel's output: an int and a bool parameter's defaults, and NaN above 14 degrees north.
cat >"$dir/k.cu" <<'KERNEL'
// @param int n = 3 [1, 10]
// @param bool on = true
if (lat > 14.0)
    return sqrtf(-1.0f);
return p.on ? real(p.n) * real(lon) + real(lat) : real(0);
KERNEL
expect 0 "Saved $dir/kernel.npy" "${mesh[@]}" --kernel-source "$dir/k.cu" \
    --export-field "$dir/kernel.npy"
check "$dir/kernel.npy" "
assert f.shape == (3, 4) and f.dtype == numpy.dtype('<f4'), (f.shape, f.dtype)
assert list(f[0]) == [3 * 30 + 10, 3 * 35 + 10, 3 * 40 + 10, 3 * 45 + 10], f[0]
assert numpy.isnan(f[1:]).all(), f
"

# Bad values exit 2 before any work; failed work exits 1, naming the file.
expect 2 "--export-field needs a file name" --export-field ""
expect 2 "--export-field: the folder /nonexistent/dir does not exist" \
    --export-field /nonexistent/dir/f.npy
expect 2 "--export-field: $dir is a folder, not a file" --export-field "$dir"
expect 2 "cannot be combined with --screenshot" --export-field "$dir/f.npy" \
    --screenshot "$dir/f.png"
expect 1 "could not write /proc/warpscope-field.npy" --export-field /proc/warpscope-field.npy
printf 'return undeclared_name;\n' >"$dir/bad.cu"
expect 1 "$dir/bad.cu:1:" --kernel-source "$dir/bad.cu" --export-field "$dir/bad.npy"
[ -e "$dir/bad.npy" ] && { echo "FAIL: a failed kernel left $dir/bad.npy"; fails=$((fails + 1)); }
exit $((fails > 0))
