#pragma once

// Runs `warpscope-bench bls` with its arguments after the word (see BlsBench.cpp). Returns the
// exit status.
int runBlsBench(int argc, char** argv);
