// warpscope-bench batch: the survey workloads of warpscope-batch.
//
//   warpscope-bench batch make W1|W2 FILE.fits [--objects N] [--seed S] [--ids numbers|text]
//     writes a synthetic catalogue as one FITS binary table (id, time, flux, flux_err; the
//     ids whole numbers, or text such as "ZTF00000001"):
//     W1, ZTF-like: 100 000 objects of N uniform in 100..500 points over 1000 days;
//     W2, TESS-like: 1000 objects of N = 20 000 points over 27 days. Each object is a
//     sinusoid of random period, amplitude and phase, with Gaussian noise and its dy.
//   warpscope-bench batch run FILE.fits [--frequencies M] [--fmin F] [--fmax F]
//                                       [--precision float64,float32] [--method auto]
//                                       [--backend auto] [--per-gpu K] [--runs R] [--limit N]
//     times warpscope-batch's whole run, FITS table in to results table out (in a temporary
//     folder), on every GPU (or the CPU), as the median of R runs, once per precision; and
//     the table's reading alone. The grid is shared by every object (M frequencies, default
//     10^5, from fmin to fmax in cycles per day).
#include "BatchBench.h"

#include "BatchRun.h"
#include "Help.h"
#include "warpscope/gpu/Catalogue.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fitsio.h>
#include <numbers>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

using namespace warpscope;

namespace {

using Clock = std::chrono::steady_clock;

int usage(bool asked = false)
{
    return bench::printUsage(
        "usage: warpscope-bench batch make W1|W2 FILE.fits [--objects N] [--seed S] "
        "[--ids numbers|text]\n"
        "       warpscope-bench batch run FILE.fits [--frequencies M] [--fmin F] "
        "[--fmax F] [--precision float64,float32] [--method auto|direct|matrix] "
        "[--backend auto|cpu|cuda] [--per-gpu K] [--runs R] [--limit N] "
        "[--read-back peaks|powers]\n",
        asked);
}

double seconds(Clock::time_point from)
{
    return std::chrono::duration<double>(Clock::now() - from).count();
}

int make(const std::string& workload, const std::string& path, long long objects,
         unsigned long long seed, bool textIds)
{
    const bool w1 = workload == "W1";
    if (!w1 && workload != "W2")
        return usage();
    if (objects <= 0)
        objects = w1 ? 100'000 : 1000;
    const double baseline = w1 ? 1000.0 : 27.0;
    std::mt19937_64 random(seed);
    std::uniform_int_distribution<int> points(100, 500);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    std::normal_distribution<double> normal(0.0, 1.0);

    fitsfile* file = nullptr;
    int status = 0;
    const std::string create = "!" + path;
    const char* names[] = {"id", "time", "flux", "flux_err"};
    const char* forms[] = {textIds ? "11A" : "K", "D", "D", "D"};
    fits_create_file(&file, create.c_str(), &status);
    fits_create_tbl(file, BINARY_TBL, 0, 4, const_cast<char**>(names), const_cast<char**>(forms),
                    nullptr, "CATALOGUE", &status);
    long long row = 1, totalPoints = 0;
    std::vector<long long> id;
    std::vector<std::string> text;
    std::vector<char*> textPointers;
    std::vector<double> t, y, dy;
    for (long long o = 0; o < objects && !status; ++o) {
        const int n = w1 ? points(random) : 20'000;
        // Periods from 0.1 to 100 days (W1) or 0.05 to 10 days (W2), log-uniform.
        const double period = w1 ? std::pow(10.0, -1.0 + 3.0 * uniform(random))
                                 : std::pow(10.0, std::log10(0.05) + 2.3 * uniform(random));
        const double amplitude = 0.05 + 0.5 * uniform(random);
        const double phase = 2.0 * std::numbers::pi * uniform(random);
        const double noise = 0.02 + 0.2 * uniform(random);
        id.assign(std::size_t(n), o + 1);
        t.resize(std::size_t(n));
        y.resize(std::size_t(n));
        dy.resize(std::size_t(n));
        for (int i = 0; i < n; ++i)
            t[std::size_t(i)] =
                w1 ? baseline * uniform(random) : baseline * (i + 0.5 * uniform(random)) / n;
        std::sort(t.begin(), t.end());
        for (int i = 0; i < n; ++i) {
            dy[std::size_t(i)] = noise * (0.5 + uniform(random));
            y[std::size_t(i)] =
                15.0 +
                amplitude * std::sin(2.0 * std::numbers::pi * t[std::size_t(i)] / period + phase) +
                dy[std::size_t(i)] * normal(random);
        }
        if (textIds) {
            char name[16];
            std::snprintf(name, sizeof name, "ZTF%08lld", (o + 1) % 100'000'000);
            text.assign(std::size_t(n), name);
            textPointers.clear();
            for (std::string& t : text)
                textPointers.push_back(t.data());
            fits_write_col(file, TSTRING, 1, row, 1, n, textPointers.data(), &status);
        } else {
            fits_write_col(file, TLONGLONG, 1, row, 1, n, id.data(), &status);
        }
        fits_write_col(file, TDOUBLE, 2, row, 1, n, t.data(), &status);
        fits_write_col(file, TDOUBLE, 3, row, 1, n, y.data(), &status);
        fits_write_col(file, TDOUBLE, 4, row, 1, n, dy.data(), &status);
        row += n;
        totalPoints += n;
    }
    int closing = 0;
    fits_close_file(file, &closing);
    if (status || closing) {
        char text[FLEN_STATUS] = {};
        fits_get_errstatus(status ? status : closing, text);
        std::fprintf(stderr, "warpscope-bench: cannot write %s: %s\n", path.c_str(), text);
        return 1;
    }
    std::printf("%s: %s, %lld objects, %lld points (mean N %.0f)\n", path.c_str(), workload.c_str(),
                objects, totalPoints, double(totalPoints) / double(objects));
    return 0;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

} // namespace

int runBatchBench(int argc, char** argv)
{
    if (bench::asksForHelp(argc, argv))
        return usage(true);
    if (argc < 2)
        return usage();
    const std::string what = argv[0];
    const bool making = what == "make";
    if ((making && argc < 3) || (!making && what != "run"))
        return usage();
    const std::string path = argv[making ? 2 : 1];
    long long objects = 0, frequencies = 100'000, limit = -1;
    unsigned long long seed = 1;
    double fmin = 0.001, fmax = 10.0;
    int runs = 3, perGpu = 2;
    bool powersToHost = false, textIds = false;
    std::string precisions = "float64,float32", method = "auto", backend = "auto";
    for (int i = making ? 3 : 2; i < argc; i += 2) {
        if (i + 1 >= argc)
            return usage();
        const std::string option = argv[i], value = argv[i + 1];
        if (option == "--objects")
            objects = std::atoll(value.c_str());
        else if (option == "--seed")
            seed = std::strtoull(value.c_str(), nullptr, 10);
        else if (option == "--frequencies")
            frequencies = std::atoll(value.c_str());
        else if (option == "--fmin")
            fmin = std::atof(value.c_str());
        else if (option == "--fmax")
            fmax = std::atof(value.c_str());
        else if (option == "--precision")
            precisions = value;
        else if (option == "--method")
            method = value;
        else if (option == "--backend")
            backend = value;
        else if (option == "--runs")
            runs = std::atoi(value.c_str());
        else if (option == "--per-gpu")
            perGpu = std::atoi(value.c_str());
        else if (option == "--limit")
            limit = std::atoll(value.c_str());
        else if (option == "--ids" && (value == "numbers" || value == "text"))
            textIds = value == "text";
        else if (option == "--read-back" && (value == "peaks" || value == "powers"))
            powersToHost = value == "powers";
        else
            return usage();
    }
    if (making)
        return make(argv[1], path, objects, seed, textIds);
    if (runs < 1 || frequencies < 1)
        return usage();

    const Clock::time_point opening = Clock::now();
    gpu::Catalogue catalogue;
    gpu::TableColumns columns;
    if (const gpu::Status s =
            gpu::Catalogue::openTable(path, columns, gpu::TimeFormat::Number, catalogue);
        !s) {
        std::fprintf(stderr, "warpscope-bench: %s\n", s.message().c_str());
        return 1;
    }
    const double readSeconds = seconds(opening);
    std::printf("%s: %zu objects, read in %.2f s; %lld frequencies %g..%g per object\n",
                path.c_str(), catalogue.size(), readSeconds, frequencies, fmin, fmax);

    const auto kind = gpu::parseBackendKind(backend);
    if (!kind)
        return usage();
    const std::filesystem::path folder = std::filesystem::temp_directory_path() /
                                         ("warpscope-bench-batch-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder);
    int exitCode = 0;
    for (std::size_t at = 0; at <= precisions.size() && exitCode == 0;) {
        const std::size_t comma = std::min(precisions.find(',', at), precisions.size());
        const std::string precision = precisions.substr(at, comma - at);
        at = comma + 1;
        batch::RunOptions o;
        scene::PeriodogramScene& c = o.settings.scene;
        c.gridMode = scene::GridMode::Linear;
        c.fmin = fmin;
        c.fmax = fmax;
        c.count = frequencies;
        c.precision = precision == "float32" ? gpu::Precision::Float32 : gpu::Precision::Float64;
        c.method = method == "direct"   ? gpu::PeriodogramMethod::Direct
                   : method == "matrix" ? gpu::PeriodogramMethod::Matrix
                                        : gpu::PeriodogramMethod::Auto;
        o.settings.peaks = 3;
        o.settings.powersToHost = powersToHost;
        o.backend = *kind;
        o.limit = limit;
        o.contextsPerGpu = std::clamp(perGpu, 1, 64);
        o.progress = false;
        o.checkpointSeconds = 1e9;
        o.csvPath = (folder / "results.csv").string();
        o.fitsPath = (folder / "results.fits").string();
        std::vector<double> times;
        for (int r = 0; r < runs && exitCode == 0; ++r) {
            std::filesystem::remove(o.csvPath);
            std::filesystem::remove(o.fitsPath);
            std::atomic<bool> stop{false};
            const Clock::time_point start = Clock::now();
            const batch::Ranks ranks;
            batch::RankDevices devices = batch::openRankDevices(o, ranks);
            exitCode = batch::runBatch(catalogue, o, ranks, devices, stop);
            times.push_back(seconds(start));
        }
        const double objectsRun =
            limit >= 0 ? double(std::min<long long>(limit, (long long)catalogue.size()))
                       : double(catalogue.size());
        // warpscope-batch computes the objects of a chunk as one batch, by the direct sums or
        // the matrix products (Auto: the matrix products where tensor cores suit the precision).
        const char* path = "batches of up to 256 objects";
        std::printf("%s, method %s (%s): median %.3f s over %d runs (min %.3f s), %.0f objects/s, "
                    "%.3f ms per object; with the table's reading %.3f s\n",
                    precision.c_str(), method.c_str(), path, median(times), runs,
                    *std::min_element(times.begin(), times.end()), objectsRun / median(times),
                    1e3 * median(times) / objectsRun, median(times) + readSeconds);
    }
    std::error_code ignored;
    std::filesystem::remove_all(folder, ignored);
    return exitCode;
}
