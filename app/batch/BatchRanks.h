#pragma once

namespace warpscope::batch {

// The processes of a run. Launched by mpirun (Open MPI's environment says so), the program
// joins MPI_COMM_WORLD; run plainly, or in a build without MPI, it is rank 0 of 1. The MPI
// implementation is chosen by linking (BatchRanksMpi.cpp or BatchRanksSingle.cpp).
struct Ranks
{
    int rank = 0;
    int size = 1;
    int localRank = 0; // among the ranks on this machine: which GPU to take
    int localSize = 1; // the ranks on this machine, which share its cores
    bool mpi = false;
};

Ranks startRanks(int& argc, char**& argv);
// Waits for every rank (nothing without MPI).
void barrier(const Ranks& ranks);
// The sum of value over the ranks, at every rank.
long long sumOverRanks(const Ranks& ranks, long long value);
// Leaves MPI, where it was joined.
void finishRanks(const Ranks& ranks);
// The MPI library's name and version, or "without MPI".
const char* mpiDescription();

} // namespace warpscope::batch
