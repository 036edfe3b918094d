#!/usr/bin/env bash
# The command line: help, version, and bad options exit non-zero with a message, and none
# of it needs a display.
set -u
app=$1
fails=0
expect() { # expected-exit-code expected-text args...
    local code=$1 text=$2; shift 2
    local out rc
    out=$(env -u DISPLAY QT_QPA_PLATFORM=none "$app" "$@" 2>&1); rc=$?
    if [ "$rc" != "$code" ] || ! grep -qF -- "$text" <<<"$out"; then
        echo "FAIL: warpscope $* -> exit $rc (want $code), output: $out"
        fails=$((fails + 1))
    else
        echo "ok: warpscope $* -> $rc"
    fi
}
expect 0 "--screenshot" --help
expect 0 "Usage: warpscope [options]" --help
expect 0 "warpscope 0." --version
expect 2 "Minimum latitude must lie in [-90, 90], not 95" --lat-min 95
expect 2 "must be a finite number, not NaN" --lat-max nan
expect 2 "Maximum latitude (29) must be greater than the minimum (30)" --lat-min 30 --lat-max 29
expect 2 "Minimum longitude must lie in [-180, 360]" --lon-min -200
expect 2 "Columns (nx) must be between 2 and 16384, not 1" --nx 1
expect 2 "Rows (ny) must be between 2 and 16384, not 100000" --ny 100000
expect 2 "--nx needs a whole number, not 'many'" --nx many
expect 2 "Columns (nx) must be between 2 and 16384, not -5" --nx -5
expect 2 "--ny must be between 2 and 16384, not 99999999999" --ny 99999999999
expect 2 "--ref needs LAT,LON" --ref 30
expect 2 "Reference 2: latitude must lie in [-90, 90], not 91" --ref 30,101 --ref 91,0
expect 2 "--backend must be auto, cpu or cuda" --backend gpu
expect 2 "--precision must be float32 or float64" --precision half
expect 2 "--units must be km, mi or nmi" --units furlong
expect 2 "Sphere radius (km) must lie in" --radius -1
expect 2 "unknown colormap 'jet'" --colormap jet
expect 2 "--size must look like 1600x1000" --size big
expect 2 "Unknown option 'frobnicate'" --frobnicate
expect 2 "--overlay must be distance, block, thread, warp, sm, sectors, conflicts or lanes" --overlay colour
expect 2 "--block needs X,Y,Z" --block 16,16
expect 2 "--block dimensions must be at least 1" --block 0,1,1
expect 2 "exceed the limit of 1024 on any CUDA GPU" --block 64,32,1
expect 2 "exceeds the limit of 64 on any CUDA GPU" --block 1,1,65 --overlay block
expect 2 "must be at least 1, not 0" --grid 0,4,1
expect 2 "exceeds the limit of 65535 on any CUDA GPU" --grid 1,70000,1 --grid-stride
expect 2 "--lab-streams must be 1 or k, not '3'" --lab-streams 3
expect 2 "--lab-ordered orders the copies of k streams" --lab-streams 1 --lab-ordered
expect 2 "--lab-length needs a whole number, not '2.5'" --lab-length 2.5
expect 2 "The array length must be between 1 and" --lab-length 0
expect 2 "The number of arrays must be between 1 and 64; it is 65" --lab-arrays 65
expect 2 "--lab-arrays needs a whole number" --lab-arrays many
expect 2 "--export-trace needs a file name" --export-trace ""
expect 2 "--series needs a file name" --series ""
expect 2 "The maximum frequency must be above the minimum" --frequencies 5,1,10
expect 2 "The minimum frequency must be above 0" --frequencies 0,1,10
expect 2 "The number of frequencies must be between 1 and" --frequencies 0.1,1,0
expect 2 "--frequencies needs FMIN,FMAX,M" --frequencies 0.1,1
expect 2 "--frequencies needs FMIN,FMAX,M[,log]" --frequencies 0.1,1,10,cubic
expect 2 "The maximum frequency must be a finite number" --frequencies 0.1,inf,10
expect 2 "The minimum frequency must be a finite number" --frequencies nan,1,10
expect 2 "closer than double precision can tell apart" --frequencies 1,1.0000000000000002,1000
expect 2 "--method must be auto, direct or matrix, not 'fast'" --method fast
expect 2 "--device needs a device number such as 0, not 'big'" --device big
expect 2 "--normalization must be standard, model, log or psd, not 'max'" --normalization max
expect 2 "--time-format must be one of auto, number, iso-8601-date" --series x.csv --time-format week
expect 2 "--time-format needs --series" --time-format mjd
expect 2 "degree must be 0 to 5, not 9" --detrend poly:9
expect 2 "--detrend poly:N needs a whole degree N, not 'two'" --detrend poly:two
expect 2 "window must be a finite time above 0, not -3" --detrend median:-3
expect 2 "window must be a finite time above 0, not nan" --detrend median:nan
expect 2 "--detrend must be none, poly:N (N = 0 to 5) or median:W, not 'spline'" --detrend spline
# As warpscope-batch reads it (batch_test.sh): a degree is whole as written.
expect 2 "--detrend must be none, poly:N (N = 0 to 5) or median:W, not 'spline:3'" --detrend spline:3
expect 2 "--detrend poly:N needs a whole degree N, not '2.0'" --detrend poly:2.0
expect 2 "--detrend poly:N needs a whole degree N, not '99999999999'" --detrend poly:99999999999
expect 2 "--mask needs T0:T1" --mask 5
expect 2 "--mask: Masked range 2 is reversed: [5, 4]" --mask 1:2 --mask 5:4
expect 2 "--mask: Masked range 1 needs finite times" --mask nan:4
expect 2 "--export-periodogram needs a file name" --export-periodogram ""
expect 2 "--export-peaks: the folder /nonexistent does not exist" --export-peaks /nonexistent/p.json
expect 2 "--export-periodogram: the folder /nonexistent/dir does not exist" \
    --export-periodogram /nonexistent/dir/p.csv
expect 2 "cannot be combined with --sweep" --export-peaks p.json --sweep
expect 1 "there is no CUDA device 99" --device 99
# Scene files: a missing, unreadable or invalid one is a bad option; the options given with a
# good one override its values, whichever comes first.
scenes=$(mktemp -d)
trap 'rm -rf "$scenes"' EXIT
scene() { # file field-json
    printf '{"format": "warpscope-scene", "version": 1, "field": %s}\n' "$2" >"$scenes/$1"
}
expect 2 "$scenes/none.json: no such file" --scene "$scenes/none.json"
expect 2 "--scene needs a file name" --scene ""
expect 2 "$scenes: is a folder, not a scene file" --scene "$scenes"
scene bad.json '{"nx": "many"}'
expect 2 "bad.json: field.nx: expected a whole number" --scene "$scenes/bad.json"
scene range.json '{"latMin": 95}'
expect 2 "range.json: field: Minimum latitude must lie in [-90, 90], not 95" \
    --scene "$scenes/range.json"
scene colour.json '{"colormap": "jet"}'
expect 2 "colour.json: field.colormap: unknown colormap 'jet'" --scene "$scenes/colour.json"
printf '{"format": "warpscope-scene", "version": 1, "fiel' >"$scenes/cut.json"
expect 2 "cut.json: is not valid JSON" --scene "$scenes/cut.json"
head -c 2048 /dev/urandom >"$scenes/noise.json"
expect 2 "noise.json: is not" --scene "$scenes/noise.json"
scene good.json '{"latMin": -5, "latMax": 10, "nx": 64, "ny": 48, "colormap": "magma"}'
expect 2 "Maximum latitude (10) must be greater than the minimum (20)" \
    --scene "$scenes/good.json" --lat-min 20
expect 2 "Maximum latitude (10) must be greater than the minimum (20)" \
    --lat-min 20 --scene "$scenes/good.json"
# Input files are checked before any window: a missing one, a folder, a device or a pipe
# (which may never end) and an empty one are bad options, named; a kernel's source is text.
mkfifo "$scenes/fifo"
: >"$scenes/empty.csv"
: >"$scenes/empty.cu"
: >"$scenes/empty.json"
printf 'return 1.0f;\0while (true) {}' >"$scenes/nul.cu"
printf '\0' >"$scenes/only-nul.cu"
expect 2 "--kernel-source: $scenes/none.cu: no such file" --kernel-source "$scenes/none.cu"
expect 2 "--kernel-source: /dev/zero: is not a regular file" --kernel-source /dev/zero
expect 2 "--kernel-source: $scenes/fifo: is not a regular file" --kernel-source "$scenes/fifo"
expect 2 "--kernel-source: $scenes: is a folder" --kernel-source "$scenes"
expect 2 "--kernel-source: $scenes/empty.cu: is empty" --kernel-source "$scenes/empty.cu"
expect 2 "--kernel-source needs a file name" --kernel-source ""
expect 2 "nul.cu: holds a NUL byte at byte 12" --kernel-source "$scenes/nul.cu"
expect 2 "only-nul.cu: holds a NUL byte at byte 0" --kernel-source "$scenes/only-nul.cu" \
    --screenshot "$scenes/never.png"
expect 2 "--series: $scenes/none.csv: no such file" --series "$scenes/none.csv"
expect 2 "--series: /dev/zero is not a regular file" --series /dev/zero
expect 2 "--series: $scenes/fifo is not a regular file" --series "$scenes/fifo"
expect 2 "--series: $scenes is a folder" --series "$scenes"
expect 2 "--series: $scenes/empty.csv is empty" --series "$scenes/empty.csv"
expect 2 "/dev/zero: is not a regular file" --scene /dev/zero
expect 2 "$scenes/fifo: is not a regular file" --scene "$scenes/fifo"
expect 2 "$scenes/empty.json: is empty" --scene "$scenes/empty.json"
# A scene's kernel is a program from whoever wrote the file: an unattended picture runs it
# only with --trust-kernel; the kernel of a file given with --kernel-source needs no word.
kernelScene() { # file workspace
    printf '{"format": "warpscope-scene", "version": 1, "workspace": "%s", "kernel": {"source": "return float(lat * 3.0 - lon);"}}\n' \
        "$2" >"$scenes/$1"
}
kernelScene kernel.json kernel
kernelScene field-kernel.json field
expect 2 "kernel.json holds a kernel of its own, which would be compiled and run: give --trust-kernel" \
    --scene "$scenes/kernel.json" --screenshot "$scenes/never.png"
expect 2 "give --trust-kernel" --scene "$scenes/kernel.json" --export-trace "$scenes/never.json"
expect 2 "give --trust-kernel" --scene "$scenes/field-kernel.json" --kernel \
    --screenshot "$scenes/never.png"
expect 2 "--trust-kernel runs the kernel of a --scene file, and no --scene is given" --trust-kernel
printf 'return float(lat);\n' >"$scenes/kernel.cu"
printf 'return notDeclared;\n' >"$scenes/broken.cu"
# With a display, the good scene opens and renders.
if [ -n "${DISPLAY:-}" ]; then
    out=$("$app" --scene "$scenes/good.json" --backend cpu --size 640x480 \
        --screenshot "$scenes/shot.png" 2>&1)
    rc=$?
    if [ "$rc" != 0 ] || ! grep -qF "Saved $scenes/shot.png" <<<"$out"; then
        echo "FAIL: warpscope --scene good.json --screenshot -> exit $rc, output: $out"
        fails=$((fails + 1))
    else
        echo "ok: warpscope --scene good.json --screenshot -> 0"
    fi
    shot() { # expected-exit-code expected-text args...
        local code=$1 text=$2; shift 2
        local out rc
        out=$("$app" --backend cpu --size 640x480 "$@" 2>&1); rc=$?
        if [ "$rc" != "$code" ] || ! grep -qF -- "$text" <<<"$out"; then
            echo "FAIL: warpscope $* -> exit $rc (want $code), output: $out"
            fails=$((fails + 1))
        else
            echo "ok: warpscope $* -> $rc"
        fi
    }
    shot 0 "Saved $scenes/trusted.png" --scene "$scenes/kernel.json" --trust-kernel \
        --screenshot "$scenes/trusted.png"
    # On the field, the scene's kernel does not run, so it needs no word.
    shot 0 "Saved $scenes/field.png" --scene "$scenes/field-kernel.json" \
        --screenshot "$scenes/field.png"
    shot 0 "Saved $scenes/own.png" --scene "$scenes/kernel.json" \
        --kernel-source "$scenes/kernel.cu" --screenshot "$scenes/own.png"
    # A kernel that does not compile is failed work.
    shot 1 "the kernel did not compile" --kernel-source "$scenes/broken.cu" \
        --screenshot "$scenes/never.png"
fi
# Exports alone compute without a window (and so without a display): weekly dates are days,
# and below the weekly Nyquist frequency the highest peak is the year.
dates=$(dirname "$0")/../fixtures/dates/weekly_yyyymmdd.csv
expect 0 "Saved $scenes/pg.json" --backend cpu --series "$dates" --frequencies 0.0005,0.07,20000 \
    --normalization psd --no-dy --export-periodogram "$scenes/pg.csv" --export-peaks "$scenes/pg.json"
if [ "$(head -n 1 "$scenes/pg.csv")" != "frequency (cycles per day),period (days),power" ] ||
    [ "$(wc -l <"$scenes/pg.csv")" != 20001 ]; then
    echo "FAIL: the periodogram's CSV: $(head -n 2 "$scenes/pg.csv")"
    fails=$((fails + 1))
fi
if ! python3 - "$scenes/pg.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
first = doc["peaks"][0]
assert doc["periodUnit"] == "days" and doc["normalization"] == "psd", doc
assert abs(first["period"] - 365.25) < 0.01 * 365.25, first
assert "falseAlarmProbability" in first, first
PY
then
    echo "FAIL: the peaks' JSON: $(head -c 600 "$scenes/pg.json")"
    fails=$((fails + 1))
fi
# Yearly means, as sunspot numbers come (an 11-year cycle and noise): the automatic grid stops
# at the Nyquist frequency of yearly sampling and says why on stderr, so the highest peak is
# the cycle, not its twin at 1 + 1/11 cycles per year; every peak has its false-alarm
# probability, none lies at a period beyond the baseline.
python3 - "$scenes/yearly.csv" <<'PY'
import math, random, sys
random.seed(11)
with open(sys.argv[1], "w") as f:
    f.write("year,value\n")
    for i in range(320):
        f.write(f"{1700 + i},{80 + 60 * math.sin(2 * math.pi * i / 11) + random.gauss(0, 20):.1f}\n")
PY
expect 0 "Regular sampling every 1 years: Nyquist frequency 0.5 cycles per year; the automatic grid stops there" \
    --backend cpu --series "$scenes/yearly.csv" --export-peaks "$scenes/yearly.json"
if ! python3 - "$scenes/yearly.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
peaks = doc["peaks"]
assert doc["periodUnit"] == "years" and len(peaks) == 10, doc
assert abs(peaks[0]["period"] - 11) < 0.2, peaks[0]
assert peaks[0]["falseAlarmProbability"] < 1e-50, peaks[0]
for p in peaks:
    assert isinstance(p["falseAlarmProbability"], (int, float)), p
    assert 0 <= p["falseAlarmProbability"] <= 1, p
    assert p["frequency"] <= 0.5 and p["period"] <= 319, p
PY
then
    echo "FAIL: the yearly series' peaks: $(head -c 600 "$scenes/yearly.json")"
    fails=$((fails + 1))
fi
# A manual grid may go beyond the Nyquist frequency; the note says what lies there.
expect 0 "the grid goes beyond it, where every peak is an alias" --backend cpu \
    --series "$scenes/yearly.csv" --frequencies 0.01,2.5,20000 --export-peaks "$scenes/beyond.json"
# Read as plain numbers, the times have no unit, and the header says none.
expect 0 "Saved $scenes/plain.csv" --backend cpu --series "$dates" --time-format number \
    --fixed-mean --export-periodogram "$scenes/plain.csv"
if [ "$(head -n 1 "$scenes/plain.csv")" != "frequency,period,power" ]; then
    echo "FAIL: plain numbers' CSV header: $(head -n 1 "$scenes/plain.csv")"
    fails=$((fails + 1))
fi
# Detrending and masks, on weekly dates with a linear and quadratic trend over ten years and
# a yearly sinusoid: the trend's leakage is the highest peak until a degree-2 polynomial is
# taken out; a masked year leaves its points out.
python3 - "$scenes/trended.csv" <<'PY'
import datetime, math, random, sys
random.seed(5)
with open(sys.argv[1], "w") as f:
    f.write("date,value\n")
    for i in range(520):
        x = i / 52.0
        y = 10 + 4 * x + 0.8 * (x - 5) ** 2 + math.sin(2 * math.pi * i * 7 / 365.25) + random.gauss(0, 0.3)
        f.write(f"{datetime.date(2010, 1, 3) + datetime.timedelta(weeks=i)},{y:.4f}\n")
PY
best_period() { python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['peaks'][0]['period'])" "$1"; }
expect 0 "Saved $scenes/raw.json" --backend cpu --series "$scenes/trended.csv" \
    --export-peaks "$scenes/raw.json"
expect 0 "Periodogram of the residuals after a degree-2 polynomial" --backend cpu \
    --series "$scenes/trended.csv" --detrend poly:2 --export-peaks "$scenes/poly.json"
# 2012-01-01 to 2012-12-31 is MJD 55927 to 55927 + 365: 53 Sundays.
expect 0 "Masked 53 points in 1 ranges; 467 remain" --backend cpu \
    --series "$scenes/trended.csv" --detrend median:200 --mask 55927:56292 \
    --export-periodogram "$scenes/median.csv" --export-peaks "$scenes/median.json"
expect 0 "running median over 200 days" --backend cpu \
    --series "$scenes/trended.csv" --detrend median:200 --export-peaks "$scenes/median.json"
if ! python3 - "$(best_period "$scenes/raw.json")" "$(best_period "$scenes/poly.json")" \
    "$(best_period "$scenes/median.json")" <<'PY'
import sys
raw, poly, median = map(float, sys.argv[1:])
assert abs(raw - 365.25) > 0.2 * 365.25, raw
assert abs(poly - 365.25) < 0.02 * 365.25, poly
assert abs(median - 365.25) < 0.05 * 365.25, median
PY
then
    echo "FAIL: detrended best periods (raw, poly, median) are not as expected"
    fails=$((fails + 1))
fi
expect 1 "Every point of the series is masked" --backend cpu --series "$scenes/trended.csv" \
    --mask 0:99999 --export-peaks "$scenes/never.json"
expect 1 "needs at least 6 distinct times, and there are 4" --backend cpu --series "$scenes/trended.csv" \
    --mask 0:57990 --mask 58020:99999 --detrend poly:5 --export-peaks "$scenes/never.json"
# Work that fails exits 1 with the reason: a series that is not dates, read as dates.
expect 1 "is not a date" --backend cpu --series "$dates" --time-format iso \
    --export-peaks "$scenes/never.json"
expect 2 "--series: /nonexistent/series.csv: no such file" --series /nonexistent/series.csv \
    --export-peaks "$scenes/never.json"
printf ' \n\n' >"$scenes/blank.csv"
expect 1 "$scenes/blank.csv: The file holds no data" --backend cpu --series "$scenes/blank.csv" \
    --export-peaks "$scenes/never.json"
[ ! -e "$scenes/never.json" ] || { echo "FAIL: a failed export wrote a file"; fails=$((fails + 1)); }
# Multi-term models and prewhitening, on the fixtures of tests/fixtures/generate_multiterm.py.
fixtures=$(cd "$(dirname "$0")/../fixtures/periodogram" && pwd)
expect 2 "--nterms must be a whole number from 1 to 6, not '7'" --nterms 7
expect 2 "--nterms must be a whole number from 1 to 6, not 'two'" --nterms two
expect 2 "--prewhiten must be a whole number from 1 to 100, not '0'" --prewhiten 0
# The other edges of the declared ranges (scene/Options.cpp).
expect 2 "--nterms must be a whole number from 1 to 6, not '0'" --nterms 0
expect 2 "--prewhiten must be a whole number from 1 to 100, not '101'" --prewhiten 101
expect 2 "--prewhiten must be a whole number from 1 to 100, not '101'" --prewhiten 101
expect 2 "--export-frequencies: the folder /nonexistent does not exist" \
    --export-frequencies /nonexistent/f.csv
expect 0 "Saved $scenes/h.json" --backend cpu --series "$fixtures/series_H.csv" --nterms 3 \
    --export-peaks "$scenes/h.json"
# Three terms put the highest peak at the fundamental (2.37 days); Baluev's false-alarm
# probability is for one term, so none is given.
if ! python3 - "$scenes/h.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["nterms"] == 3, d["nterms"]
assert abs(d["peaks"][0]["period"] - 2.37) < 0.01, d["peaks"][0]
assert d["peaks"][0]["falseAlarmProbability"] is None
PY
then
    echo "FAIL: the three-term periodogram's best period or its FAP"
    fails=$((fails + 1))
fi
# Box least squares on the transit fixture (tests/fixtures/generate_period_methods.py: P =
# 3.5725 d, 0.5 % deep, 2.5 hours): the orbit, and each peak's box in the exports.
methods=$(cd "$(dirname "$0")/../fixtures/period-methods" && pwd)
expect 2 "--search must be ls, bls, pdm or ce, not 'fourier'" --search fourier
expect 2 "--bls-durations: Transit durations must be 'auto' or numbers above 0" \
    --bls-durations 0.1,-2
expect 2 "--bls-objective: The box least squares objective must be likelihood or snr" \
    --bls-objective power
expect 0 "Saved $scenes/bls.json" --backend cpu --series "$methods/transit.csv" --search bls \
    --bls-durations 0.05,0.1,0.15 --frequencies 0.1666667,0.5,3000 \
    --export-peaks "$scenes/bls.json" --export-periodogram "$scenes/bls.csv"
if ! python3 - "$scenes/bls.json" "$scenes/bls.csv" <<'PY'
import csv, json, math, sys
d = json.load(open(sys.argv[1]))
best = d["peaks"][0]
assert abs(best["period"] - 3.5725) < 0.003, best
assert abs(best["depth"] - 0.005) < 0.0005, best
assert best["duration"] == 0.1, best
assert abs(math.remainder(best["transit_time"] - 1.3, best["period"])) < 0.01, best
assert best["falseAlarmProbability"] is None
rows = list(csv.reader(open(sys.argv[2])))
assert rows[0][3:] == ["depth", "depth_err", "duration", "transit_time", "depth_snr",
                       "log_likelihood"], rows[0]
assert len(rows) == 3001, len(rows)
PY
then
    echo "FAIL: box least squares' best period or its box in the exports"
    fails=$((fails + 1))
fi
# Three rounds of prewhitening, then the three sinusoids fitted together: the same as scipy's
# curve_fit of all three (fit_P.csv, case "all"), to 1e-4 of each error bar.
expect 0 "Saved $scenes/frequencies.csv" --backend cpu --series "$fixtures/series_P.csv" \
    --prewhiten 3 --export-frequencies "$scenes/frequencies.csv" \
    --export-peaks "$scenes/prewhitened.json"
if ! python3 - "$scenes/frequencies.csv" "$fixtures/fit_P.csv" "$scenes/prewhitened.json" <<'PY'
import csv, json, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if not l.startswith("#"))][1:]
ref = {}
for r in csv.reader(l for l in open(sys.argv[2]) if not l.startswith("#")):
    if r[0] == "all":
        ref[r[1]] = (float(r[2]), float(r[3]))
assert len(rows) == 3, rows
for k, r in enumerate(rows):
    for name, col in (("frequency", 1), ("amplitude", 5), ("phase", 7)):
        value, error = ref[f"{name}{k}"]
        assert abs(float(r[col]) - value) < 1e-4 * error, (name, k, r[col], value)
        assert abs(float(r[col + 1]) - error) < 1e-5 * error, (name, k, r[col + 1], error)
d = json.load(open(sys.argv[3]))
assert len(d["prewhitened"]["sinusoids"]) == 3
# What is left after three sinusoids is noise: no listed peak is significant.
assert all(p["falseAlarmProbability"] > 0.5 for p in d["peaks"]), d["peaks"]
PY
then
    echo "FAIL: the prewhitened frequencies differ from scipy's fit"
    fails=$((fails + 1))
fi
head -42 "$fixtures/series_P.csv" > "$scenes/short.csv"
expect 1 "Fitting 15 frequencies takes 46 parameters, and there are only 40 points" \
    --backend cpu --series "$scenes/short.csv" --prewhiten 15 \
    --export-frequencies "$scenes/never.csv"
[ ! -e "$scenes/never.csv" ] || { echo "FAIL: a failed prewhitening wrote a file"; fails=$((fails + 1)); }
# A long periodogram is announced with its estimate before it starts, then its time shown
# (every 10 s off a terminal): 300 000 points at 10^6 frequencies.
awk 'BEGIN { print "time,flux"; for (i = 0; i < 300000; i++) printf "%d,%d\n", i, (i * 7919) % 13 }' \
    >"$scenes/long.csv"
env -u DISPLAY QT_QPA_PLATFORM=none "$app" --backend cpu --series "$scenes/long.csv" \
    --frequencies 0.001,0.4,1000000 --export-periodogram "$scenes/long-pg.csv" \
    >/dev/null 2>"$scenes/long.log" &
pid=$!
for _ in $(seq 200); do grep -q "computing the periodogram:" "$scenes/long.log" && break; sleep 0.1; done
kill $pid
wait $pid 2>/dev/null
if ! grep -qE "this periodogram is long: 300000 points x 1000000 frequencies x 1 term = 3e\+11 terms: about" "$scenes/long.log" ||
    ! grep -qE "computing the periodogram: [0-9]+s of about" "$scenes/long.log"; then
    echo "FAIL: a long periodogram was not announced: $(cat "$scenes/long.log")"
    fails=$((fails + 1))
else
    echo "ok: a long periodogram is announced and its time shown"
fi
if ! command -v nvidia-smi >/dev/null 2>&1; then
    expect 1 "The CUDA backend was requested, but" --backend cuda
fi
exit $((fails > 0))
