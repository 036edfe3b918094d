#!/usr/bin/env bash
# On a machine with two GPUs, from a bundle (source .device/env.sh and .device/mpi-env.sh
# first): warpscope-batch over W1 and W2 on one GPU, on both (threads), and with
# mpirun -np 2 (a GPU a rank), each timed RUNS times (2 by default) as a whole run, the three
# tables compared; each run's own lines say how long reading the table, waiting for the
# devices, computing and writing took. A run of a few seconds varies by a fifth from round to
# round, so compare medians of several. TRACE=1 adds --trace to every run and sums each
# timeline with bench/batch_trace.py: where each GPU and each worker spent the run.
#   [RUNS=5] [TRACE=1] bash bench/batch-scaling.sh
set -u
bench=$DESKTOP_BIN/warpscope-bench batch=$DESKTOP_BIN/warpscope-batch
grid=(--frequencies 0.001,10,100000)
here=$(dirname "$0")
# --trace FILE for a run, when TRACE=1.
traced() { [ "${TRACE:-0}" = 1 ] && echo "--trace /tmp/$1.json"; }
sums() { [ "${TRACE:-0}" = 1 ] && python3 "$here/batch_trace.py" "$@" | sed 's/^/    /'; }
root=(); [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
"$bench" batch make W1 /tmp/W1.fits && "$bench" batch make W2 /tmp/W2.fits || exit 1
since() { echo $((($(date +%s%N) - $1) / 1000000)); }
# The run's phases, from its own lines.
phases() {
    tr '\r' '\n' </tmp/batch-run.log |
        grep -hoE "timeline is in .*|read .* in [0-9.]+ s|ready [0-9.]+ s|[0-9]+/[0-9]+ objects \(.*|time per worker.*|written in [0-9.]+ s" |
        sed 's/^/    /'
}
for w in W1 W2; do
    for run in $(seq "${RUNS:-2}"); do
        rm -rf /tmp/"$w"-*
        t=$(date +%s%N)
        CUDA_VISIBLE_DEVICES=0 "$batch" /tmp/$w.fits -o /tmp/$w-one.csv "${grid[@]}" \
            $(traced $w-one) 2> /tmp/batch-run.log
        echo "$w run $run: 1 GPU $(since "$t") ms"; phases; sums /tmp/$w-one.json
        t=$(date +%s%N)
        "$batch" /tmp/$w.fits -o /tmp/$w-two.csv "${grid[@]}" $(traced $w-two) \
            2> /tmp/batch-run.log
        echo "$w run $run: 2 GPUs, threads $(since "$t") ms"; phases; sums /tmp/$w-two.json
        t=$(date +%s%N)
        mpirun "${root[@]}" --bind-to none -np 2 "$batch" /tmp/$w.fits -o /tmp/$w-mpi.csv "${grid[@]}" \
            $(traced $w-mpi) 2> /tmp/batch-run.log
        echo "$w run $run: mpirun -np 2 $(since "$t") ms"; phases
        sums /tmp/$w-mpi.rank0.json /tmp/$w-mpi.rank1.json
        cmp /tmp/$w-one.csv /tmp/$w-two.csv && cmp /tmp/$w-one.csv /tmp/$w-mpi.csv &&
            echo "$w run $run: the three tables are equal byte for byte"
    done
done
