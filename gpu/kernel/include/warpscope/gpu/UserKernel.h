#pragma once

#include "warpscope/gpu/BufferView.h"
#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/Distance.h"
#include "warpscope/gpu/DistanceParams.h"
#include "warpscope/gpu/KernelMemory.h"
#include "warpscope/gpu/LaunchConfig.h"
#include "warpscope/gpu/Status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

// The kernel workbench: a person's own kernel source, wrapped into a full translation unit,
// compiled with NVRTC for the GPU (no device needed) or as C++ by the system compiler for
// the CPU simulator, and launched into a field laid out like the distance field
// (FieldLayout: padded rows, then the minimum and maximum of the finite values).
//
// The fixed signatures the user's code is written against (both targets):
//
//   struct Ref    { double lat, lon; };                      // degrees
//   struct Refs   { int count; double radius;                // Earth's, in the scene's unit
//                   Ref ref[64]; const Ref& operator[](int) const; };
//   struct Mesh   { double latMin, latMax, lonMin, lonMax; int nx, ny;
//                   double lat(int row) const; double lon(int col) const; };
//   struct Params { float|int|bool <name>; ... };            // one per // @param line
//   struct Out    { int nx, ny;                              // bounds-checked view
//                   void write(int row, int col, float value) const; };
//
//   typedef float real;                                      // double in the float64 variant
//   Per node:      the body of  real value(double lat, double lon, const Refs& refs,
//                                          const Params& p)
//   Whole kernel:  __global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)
//                  launched with the caller's grid and block.
//
// Out::write ignores a node outside the mesh and counts it: a kernel cannot write past its
// output on either target (KernelRun::outOfBoundsWrites). Raw pointers the user makes
// are not checked: on the GPU the driver reports them as an illegal address.
namespace warpscope::gpu {

enum class KernelShape
{
    PerNode,
    WholeKernel
};

struct KernelSource
{
    KernelShape shape = KernelShape::PerNode;
    std::string code;
    // How the wrapper builds it, for the variants table (KernelVariants.h): the type `real`
    // is double instead of float (the per-node value's type, and any the user's code
    // declares with it), and the kernel launched declares __launch_bounds__(launchBounds)
    // (0: none).
    bool realIsDouble = false;
    int launchBounds = 0;
    // The simulator's build records every memory access and branch of each lane, for
    // KernelRun::memory (a build of its own: without it, the simulator runs at full speed).
    bool recordMemory = false;
    bool operator==(const KernelSource&) const = default;
};

struct KernelExample
{
    std::string name;
    std::string description;
    KernelSource source;
    // The reference points the example needs to show anything, as fractions (0 to 1) of the
    // mesh's latitude and longitude spans; empty when any scene will do. A scene with fewer
    // references takes these.
    std::vector<GeoPoint> referencesAcross = {};
    // A lesson's text, shown beside its kernel; empty for the others.
    std::string notes = {};
};

// The three templates first (per node, whole kernel, the built-in haversine as editable
// source), then the examples (ripples, Voronoi by Manhattan distance, bearing to the nearest
// reference).
const std::vector<KernelExample>& kernelExamples();

inline constexpr int kMaxKernelParams = 32;
// The largest source the workbench takes (the editor's files, scene files).
inline constexpr std::size_t kMaxKernelSourceBytes = 1 << 20;
// The most NVRTC options one kernel carries.
inline constexpr int kMaxKernelFlags = 16;

enum class KernelParamType
{
    Float, // `// @param float k = 1.0 [0, 10]`: a slider
    Int,   // `// @param int n = 8 [1, 64]`: a slider in whole steps
    Bool,  // `// @param bool on = true`: a check box
};

// A live parameter, declared in the source as `// @param float k = 1.0 [0, 10]`,
// `// @param int n = 8 [1, 64]` or `// @param bool on = true`. Values are doubles, which hold
// every float and int exactly: an int's are whole numbers within int's range, a bool's are 0
// (false) and 1 (true), with min 0 and max 1.
struct KernelParam
{
    std::string name;
    double value = 0.0;
    double min = 0.0;
    double max = 1.0;
    int line = 0; // the user's line
    KernelParamType type = KernelParamType::Float;
    bool operator==(const KernelParam&) const = default;
};

// A value (a slider's, a scene's) as the parameter takes it: within [min, max]; the nearest
// float for a float, the nearest whole number for an int; for a bool, 1 for any value but 0.
// NaN gives the parameter's default.
double kernelParamValue(const KernelParam& param, double value);

enum class Severity
{
    Error,
    Warning
};

// A compiler's or the workbench's message about the user's source.
struct KernelMessage
{
    Severity severity = Severity::Error;
    int line = 0; // the user's line, 1-based; 0 when it names no line of theirs
    int column = 0;
    std::string text;
};

// A buffer of global memory a kernel declares, `// @buffer float partial[blocks]`, and
// reaches as p.partial[i] (p.partial.size() elements): an index outside it is refused and
// counted as Out::write's are. Its size is a whole number, or one of the run's counts (nodes,
// nx, ny, blocks, threads), times a whole number ("nodes * 2"). It holds zeros when a run
// starts, in memory of the kernel runner's (never the app's).
enum class KernelBufferType
{
    Float,
    Double,
    Int,
    Unsigned
};
enum class KernelBufferUnit
{
    One,
    Nodes,
    Nx,
    Ny,
    Blocks,
    Threads
};
struct KernelBuffer
{
    std::string name;
    KernelBufferType type = KernelBufferType::Float;
    KernelBufferUnit unit = KernelBufferUnit::One;
    long long factor = 1;
    int line = 0;
    bool operator==(const KernelBuffer&) const = default;
};
inline constexpr int kMaxKernelBuffers = 8;
// The most a run's buffers may hold together.
inline constexpr std::uint64_t kMaxKernelBufferBytes = 1ull << 30;
std::size_t kernelBufferElementBytes(KernelBufferType type);
// The elements of buffer in a run over mesh with launch (the whole grid); 0 when that passes
// kMaxKernelBufferBytes.
std::uint64_t kernelBufferCount(const KernelBuffer& buffer, const DistanceParams& mesh,
                                const LaunchConfig& launch);

struct KernelParamParse
{
    std::vector<KernelParam> params;
    std::vector<KernelBuffer> buffers;
    std::vector<KernelMessage> errors;
};

// Finds the @param and @buffer declarations. A malformed one is an error at its line; names
// must be C identifiers, unique, not reserved; min < max and min <= value <= max, all finite
// (an int's whole numbers within int's range; a bool's value true or false, and no range).
KernelParamParse parseKernelParams(std::string_view code);

enum class KernelTarget
{
    Cuda,
    Cpu
};

// The name of the user's code in messages and #line directives.
inline constexpr const char* kUserSourceName = "kernel.cu";

// The whole translation unit for a target: the prelude (the structs above), the user's code
// after `#line 1 "kernel.cu"` (so compilers name the user's lines), the launcher and the
// figures' kernels. params and buffers must come from parseKernelParams(source.code).
std::string wrapKernelSource(const KernelSource& source, const std::vector<KernelParam>& params,
                             const std::vector<KernelBuffer>& buffers, KernelTarget target);

struct KernelOptions
{
    int smMajor = 9; // the architecture compiled for (sm_90 where there is no device)
    int smMinor = 0;
    std::vector<std::string> flags; // NVRTC options, e.g. "-use_fast_math", "-maxrregcount=32"
    bool operator==(const KernelOptions&) const = default;
};

// Why an NVRTC option is not one a kernel may carry, or empty when it is: -use_fast_math,
// -maxrregcount=N (16 to 255), -lineinfo, and -ftz=, -prec-div=, -prec-sqrt=, -fmad= with true
// or false.
std::string kernelFlagProblem(std::string_view flag);

// What ptxas reported for the kernel the user wrote (or the per-node launcher).
struct KernelUsage
{
    bool known = false;
    int registers = 0;
    int barriers = 0;
    long long stackBytes = 0; // the local memory of one thread's stack frame
    // Spills are in ptxas' report only; resources read from the driver leave them unknown.
    bool spillsKnown = false;
    long long spillStoreBytes = 0;
    long long spillLoadBytes = 0;
    long long sharedBytes = 0; // static shared memory per block
    long long constantBytes = 0;
};

// A GPU build of a kernel: messages, PTX, CUBIN and resources.
struct CompiledKernel
{
    KernelSource source;
    KernelOptions options;
    std::vector<KernelParam> params;
    std::vector<KernelBuffer> buffers;
    bool ok = false;
    std::vector<KernelMessage> messages;
    std::string log; // NVRTC's whole log, ptxas' report included
    std::string ptx;
    std::vector<char> cubin;
    std::string entry; // the lowered name of the kernel launched
    KernelUsage usage;
    bool fromCache = false;
    double compileMs = 0.0; // NVRTC's time, or the cache's read
};

// Whether NVRTC is linked into this build, and its version ("13.0"; empty without).
bool nvrtcAvailable();
std::string nvrtcVersion();

// Compiles source with NVRTC for options' architecture; needs no device. Fails with the
// first error, every message in out.messages at the user's lines. cacheDir (empty: none)
// keeps builds on disk keyed by source, options, architecture and NVRTC version.
Status compileKernel(const KernelSource& source, const KernelOptions& options,
                     const std::string& cacheDir, CompiledKernel& out);

// The constructs the CPU simulator cannot run (inline PTX, textures, grid-wide and cluster
// groups), one error each at its line. Comments and strings are not searched.
std::vector<KernelMessage> simulatorLimitations(std::string_view code);

// The C++ compiler the simulator uses (from $CXX, else clang++, c++, g++ on PATH); empty when
// there is none.
std::string hostCompiler();
// Whether that compiler is clang++, whose instrumentation the simulator's shared-memory checks
// need (KernelRun::findings).
bool simulatorChecksMemory();

// A CPU build of a kernel: the user's source compiled as C++ into a shared library.
struct SimulatorBuild
{
    KernelSource source;
    std::vector<KernelParam> params;
    std::vector<KernelBuffer> buffers;
    bool ok = false;
    std::vector<KernelMessage> messages;
    std::string log;
    std::string library; // the shared library, loaded by the kernel runner when it runs
    bool fromCache = false;
    double compileMs = 0.0;
};

// Builds the simulator's library with hostCompiler() into cacheDir (empty: a temporary
// folder), reusing one built before from the same source. Fails, with messages at the
// user's lines, on simulatorLimitations(), on compile errors, or without a compiler.
Status buildSimulatedKernel(const KernelSource& source, const std::string& cacheDir,
                            SimulatorBuild& out);

struct KernelArgs
{
    DistanceParams mesh; // bounds, nodes, references, unit and radius
    // One per parameter, in declaration order: a float's (within float's range), an int's (a
    // whole number within int's range) or a bool's (0 or 1); runs refuse any other.
    std::vector<double> values;
    LaunchConfig launch; // the whole kernel's grid and block (per node: ignored)
    // The teaching overlay's record, when given (2 * nx * ny words, the context's memory or
    // the host's): which block, thread and SM wrote each node, laid out as LaunchLesson.h's
    // owners. Nodes no thread wrote then hold kUncovered here and NaN in the output.
    BufferView<std::uint32_t> owners;
    double timeoutMs = 2000.0; // the wait for the kernel; after it the run is stopped and fails
};

// What a kernel may print in one run (its standard output and error together); the rest is
// dropped.
inline constexpr std::uint64_t kMaxPrintedBytes = 4ull << 20;

// One printf of a simulated kernel's thread, as the runner collected it.
struct KernelPrintLine
{
    std::uint32_t block[3] = {0, 0, 0};
    std::uint32_t thread[3] = {0, 0, 0};
    std::string text;
};
// What a simulated run keeps of its printf calls: the first lines, up to 4 MiB; the rest are
// counted.
inline constexpr std::size_t kMaxPrintLines = 1000;
inline constexpr std::size_t kMaxKernelFindings = 50;

struct KernelRun
{
    double kernelMs = 0.0;
    long long outOfBoundsWrites = 0; // writes Out::write refused
    long long bufferOutOfBounds = 0; // accesses of @buffers outside them, refused
    FieldStats stats;
    LaunchConfig launch; // the grid and block it ran with (per node: the launcher's)
    // What the kernel printed (printf, its standard output and error), also when it failed or
    // crashed; at most 4 MiB, and printedCapped when it printed more (the rest was dropped).
    std::string printed;
    bool printedCapped = false;
    // The CPU simulator's printf calls, each with its block and thread: the first
    // kMaxPrintLines (at most kMaxPrintedBytes of text), and how many more there were.
    std::vector<KernelPrintLine> printLines;
    long long printLinesDropped = 0;
    // What the CPU simulator's checks found that a GPU hides: shared-memory races, reads of
    // shared memory never written, shared memory out of bounds, warp masks naming absent lanes;
    // warnings at the user's lines, each once with how often (at most kMaxKernelFindings).
    std::vector<KernelMessage> findings;
    // What the launch did to memory, warp by warp (KernelMemory.h): a simulated run of a
    // build with KernelSource::recordMemory.
    KernelMemoryReport memory;
    // The GPU run ended its process: a fault, or no answer in time (the driver reports a trap
    // only after seconds). Running it again under memcheck can name where (KernelMemcheck.h).
    bool gpuFault = false;
};

// Starts the process that runs users' kernels on context, without waiting for it, so that the
// first run does not wait for its start (a CUDA context: a few hundred ms). Optional.
Status prepareUserKernels(Context& context);

// Runs a kernel into out (layoutFor(args.mesh) values): the GPU build on a CUDA context
// (out in host memory or the context's device memory), the simulator on the CPU. The user's
// code runs in a process of its own, warpscope-kernel-runner, so a kernel that faults, crashes
// or never ends costs that process only. Waits for it. Fails with a message for the editor when
// the kernel faults or crashes (out is untouched), times out (out is untouched) or writes
// outside its output (out then holds what it wrote). For a GL buffer, use the steps below and
// map it only once the run has answered: on the H100s a CUDA-GL mapping held while the
// runner's kernel ran stalled the run (measured).
Status runUserKernel(Context& context, const CompiledKernel& gpu, const SimulatorBuild& cpu,
                     const KernelArgs& args, BufferView<float> out, KernelRun* run = nullptr);

// The same run in steps, for a caller that waits in an event loop (the Kernel view), so that a
// long run can be stopped. startUserKernel checks and sends the request (the teaching record
// is written when recordOwners; args.owners is not used); userKernelSocket is a descriptor that
// becomes readable when the run has answered; finishUserKernel waits for the answer (until
// args.timeoutMs after the start, when the run is stopped) and copies a good run's output into
// out and owners; stopUserKernel ends a run in flight with the process running it. Unlike
// runUserKernel's, the output is not seeded from out: nodes the kernel does not write keep
// what the context's last run left there.
Status startUserKernel(Context& context, const CompiledKernel& gpu, const SimulatorBuild& cpu,
                       const KernelArgs& args, bool recordOwners);
bool userKernelRunning(Context& context);
// Whether the run in flight has answered, waiting up to waitMs for it (true when none is).
bool userKernelAnswered(Context& context, double waitMs);
int userKernelSocket(Context& context);
Status finishUserKernel(Context& context, BufferView<float> out, BufferView<std::uint32_t> owners,
                        KernelRun& run);
void stopUserKernel(Context& context);

} // namespace warpscope::gpu
