#include "BatchRanks.h"

#include <cstdlib>
#include <mpi.h>

namespace warpscope::batch {
namespace {

int environmentNumber(const char* name, int fallback)
{
    const char* value = std::getenv(name);
    return value ? std::atoi(value) : fallback;
}

} // namespace

Ranks startRanks(int& argc, char**& argv)
{
    // A plain run stays a plain process: MPI_Init without mpirun would start Open MPI's
    // singleton machinery for nothing.
    if (!std::getenv("OMPI_COMM_WORLD_SIZE") && !std::getenv("PMIX_RANK"))
        return {};
    MPI_Init(&argc, &argv);
    Ranks ranks;
    ranks.mpi = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &ranks.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks.size);
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, ranks.rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &ranks.localRank);
    MPI_Comm_size(local, &ranks.localSize);
    MPI_Comm_free(&local);
    ranks.localRank = environmentNumber("OMPI_COMM_WORLD_LOCAL_RANK", ranks.localRank);
    return ranks;
}

void barrier(const Ranks& ranks)
{
    if (ranks.mpi)
        MPI_Barrier(MPI_COMM_WORLD);
}

long long sumOverRanks(const Ranks& ranks, long long value)
{
    if (!ranks.mpi)
        return value;
    long long sum = 0;
    MPI_Allreduce(&value, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return sum;
}

void finishRanks(const Ranks& ranks)
{
    if (ranks.mpi)
        MPI_Finalize();
}

const char* mpiDescription()
{
    static char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(text, &length);
    return text;
}

} // namespace warpscope::batch
