#!/usr/bin/env bash
# The memory lessons (tests/fixtures/memory-kernels/) on a GPU under Nsight Compute: the
# hardware's counts of global sectors and requests, shared-memory wavefronts and instructions,
# and threads per executed instruction, one row per kernel in the manifest's order, for
# bench/memory_compare.py to set beside the simulator's record.
#   bench/memory-reference.sh BIN/warpscope-memory-reference FIXTURE_DIR OUT_DIR
# writes OUT_DIR/ncu-basic.csv (the metrics named in the memory issue) and OUT_DIR/ncu-more.csv
# (stores, atomics and shared stores too; a driver without one of them leaves only the first).
set -euo pipefail
bin=$1 dir=$2 out=$3
basic=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
basic+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
basic+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
basic+=,smsp__thread_inst_executed_per_inst_executed.ratio
more=$basic,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
more+=,l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum,l1tex__t_requests_pipe_lsu_mem_global_op_red.sum
more+=,l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum,l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum
more+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
more+=,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
mkdir -p "$out"
ncu --clock-control none --kernel-name kernel --metrics "$basic" --csv --page raw \
    "$bin" --gpu "$dir" > "$out/ncu-basic.csv"
ncu --clock-control none --kernel-name kernel --metrics "$more" --csv --page raw \
    "$bin" --gpu "$dir" > "$out/ncu-more.csv" || echo "ncu-more failed" >&2
