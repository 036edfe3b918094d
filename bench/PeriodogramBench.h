#pragma once

// Runs `warpscope-bench periodogram`; appCall: only the app's call on CUDA, timed and traced
// (what the Periodogram workspace waits for). Returns the exit status.
int runPeriodogramBench(int runs, bool appCall);
