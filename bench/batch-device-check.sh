#!/usr/bin/env bash
# On a GPU machine: warpscope-batch on CUDA equals the CPU backend, and several GPUs (threads,
# and mpirun ranks when mpirun is there) give the table of one GPU, byte for byte.
#   bash bench/batch-device-check.sh [BUILD_DIR (build-hopper)] [OBJECTS (2000)]
# (or, from a bundle: source .device/env.sh && source .device/mpi-env.sh first)
# Tolerances against the CPU (float64): best power 1e-9 relative, FAP 1e-6 relative, the best
# frequency the same grid point unless two peaks' powers are within 1e-9 of each other.
set -u
build=${1:-build-hopper} objects=${2:-2000}
# From a bundle (source .device/env.sh), the binaries are in $DESKTOP_BIN.
batch=${DESKTOP_BIN:-$build/app/batch}/warpscope-batch
bench=${DESKTOP_BIN:-$build/bench}/warpscope-bench
work=$(mktemp -d /tmp/warpscope-batch-check.XXXXXX)
grid=(--frequencies 0.001,10,100000 --quiet)
fails=0
check() { # description command...
    local what=$1; shift
    if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}

"$bench" batch make W1 "$work/w1.fits" --objects "$objects" || exit 1
"$bench" batch make W2 "$work/w2.fits" --objects 20 || exit 1
for w in w1 w2; do
    "$batch" "$work/$w.fits" -o "$work/$w-cpu.csv" "${grid[@]}" --backend cpu || fails=$((fails + 1))
    for method in auto direct matrix; do
        "$batch" "$work/$w.fits" -o "$work/$w-cuda-$method.csv" "${grid[@]}" --backend cuda \
            --method "$method" || fails=$((fails + 1))
        awk -F, -v cpu="$work/$w-cpu.csv" -v name="$w $method" '
            function rel(a, b) { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; return m > 0 ? d / m : d }
            BEGIN { while ((getline line < cpu) > 0) { split(line, c, ","); want[c[1]] = line } }
            NR > 1 { split(want[$1], c, ",")
                if ($2 != c[2] || $3 != c[3]) { bad++; next }
                if ($2 != "ok") next
                n++
                if (rel($6, c[6]) > 1e-9 || rel($7, c[7]) > 1e-6) { bad++; if (bad < 5) print "  " $1 ": " $0 " | cpu " want[$1] }
                if ($4 != c[4]) { moved++; if (rel($6, c[6]) > 1e-9) bad++ }
                worst = rel($6, c[6]) > worst ? rel($6, c[6]) : worst }
            END { printf "%s: %d objects, best power within %.2g of the CPU, %d best frequencies at another grid point (ties), %d out of tolerance\n", name, n, worst, moved, bad
                  exit bad > 0 }' "$work/$w-cuda-$method.csv"
        check "$w CUDA ($method) equals the CPU" [ $? = 0 ]
    done
done

gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$gpus" -ge 2 ]; then
    CUDA_VISIBLE_DEVICES=0 "$batch" "$work/w1.fits" -o "$work/one.csv" "${grid[@]}"
    "$batch" "$work/w1.fits" -o "$work/all.csv" "${grid[@]}"
    check "$gpus GPUs (threads) equal one GPU" cmp "$work/one.csv" "$work/all.csv"
    if command -v mpirun >/dev/null; then
        root=(); [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
        mpirun "${root[@]}" -np "$gpus" "$batch" "$work/w1.fits" -o "$work/mpi.csv" "${grid[@]}"
        check "mpirun -np $gpus equals one GPU" cmp "$work/one.csv" "$work/mpi.csv"
    else
        echo "note: no mpirun here; the ranks were not compared"
    fi
else
    echo "note: $gpus GPU; the multi-GPU comparison needs two"
fi
rm -rf "$work"
echo "$fails failure(s)"
[ "$fails" = 0 ]
