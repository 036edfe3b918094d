// compute-sanitizer's memcheck reports, recorded on a GPU by
// tests/fixtures/memcheck/generate_memcheck.sh from faults.cu, whose kernels fault at known
// lines, blocks and threads: the expected values come from faults.cu, not from the parser.
#include "warpscope/gpu/KernelMemcheck.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace warpscope::gpu::test {
namespace {

std::string recorded(const std::string& name)
{
    const std::filesystem::path path =
        std::filesystem::path(WARPSCOPE_FIXTURE_DIR) / "memcheck" / (name + ".txt");
    std::ifstream in(path);
    EXPECT_TRUE(in.good()) << path;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

struct Expected
{
    const char* fixture;
    const char* what; // a part of memcheck's header
    int line;
    std::array<int, 3> block;
    int threadX; // -1: any lane of the faulting row
    int threadY;
};

TEST(MemcheckReport, NamesTheLineBlockAndThreadOfEachRecordedFault)
{
    const Expected cases[] = {
        {"out-of-bounds", "Invalid __global__ write of size 4 bytes", 10, {2, 0, 0}, 5, 0},
        {"misaligned", "Invalid __global__ write of size 4 bytes", 16, {1, 0, 0}, 3, 0},
        {"trap", "", 22, {1, 0, 0}, 7, 0},
        {"nested", "Invalid __global__ write of size 4 bytes", 27, {0, 1, 0}, -1, 2}};
    for (const Expected& e : cases) {
        const MemcheckReport report = parseMemcheckReport(recorded(e.fixture));
        ASSERT_FALSE(report.findings.empty()) << e.fixture;
        const MemcheckFinding& f = report.findings.front();
        EXPECT_NE(f.what.find(e.what), std::string::npos) << e.fixture << ": " << f.what;
        EXPECT_EQ(f.file, "faults.cu") << e.fixture;
        EXPECT_EQ(f.line, e.line) << e.fixture;
        EXPECT_EQ(f.userLine(), 0) << "faults.cu is not the user's kernel.cu";
        ASSERT_TRUE(f.located) << e.fixture;
        EXPECT_EQ(f.block, e.block) << e.fixture;
        if (e.threadX >= 0)
            EXPECT_EQ(f.thread[0], e.threadX) << e.fixture;
        EXPECT_EQ(f.thread[1], e.threadY) << e.fixture;
        EXPECT_EQ(f.thread[2], 0) << e.fixture;
        EXPECT_GT(report.errorCount, 0) << e.fixture;
        EXPECT_NE(f.summary().find("faults.cu:" + std::to_string(e.line)), std::string::npos)
            << f.summary();
    }
}

TEST(MemcheckReport, ACleanRunHasNoFindingAndCountsNoError)
{
    const MemcheckReport report = parseMemcheckReport(recorded("clean"));
    EXPECT_TRUE(report.findings.empty()) << report.text;
    EXPECT_EQ(report.errorCount, 0);
}

TEST(MemcheckReport, TheUsersLineIsNamedAsTheEditorShowsIt)
{
    const MemcheckReport report =
        parseMemcheckReport("========= COMPUTE-SANITIZER\n"
                            "========= Invalid __global__ write of size 4 bytes\n"
                            "=========     at kernel(Out, Mesh, Refs, Params)+0x70 in "
                            "/tmp/x/kernel.cu:4\n"
                            "=========     by thread (37,0,0) in block (2,0,0)\n"
                            "=========     Access to 0x10 is out of bounds\n"
                            "========= ERROR SUMMARY: 1 error\n");
    ASSERT_EQ(report.findings.size(), 1u);
    EXPECT_EQ(report.findings[0].userLine(), 4);
    EXPECT_EQ(report.findings[0].summary(),
              "Line 4: Invalid __global__ write of size 4 bytes, by thread (37, 0, 0) of block "
              "(2, 0, 0). Access to 0x10 is out of bounds");
}

TEST(MemcheckReport, MalformedAndHostileLinesAreIgnoredWithoutHarm)
{
    const std::string hostile[] = {
        "",
        "=========",
        "========= Invalid\n=========     at \n=========     by thread (\n",
        "========= Invalid x\n=========     at f in kernel.cu:99999999999999999999\n"
        "=========     by thread (1,2) in block (3,4,5)\n",
        "========= Invalid x\n=========     at f+0x in :\n=========     by thread in block\n",
        "========= ERROR SUMMARY: many errors\n",
        std::string(1 << 20, '=') + "\n",
        "=========" + std::string(100000, ' ') + "x\n",
        std::string("========= Invalid \0 write\n", 26)};
    for (const std::string& text : hostile) {
        const MemcheckReport report = parseMemcheckReport(text);
        for (const MemcheckFinding& f : report.findings) {
            EXPECT_GE(f.line, 0);
            EXPECT_LE(f.details.size(), 4u);
            EXPECT_FALSE(f.summary().empty());
        }
    }
    const MemcheckReport big = parseMemcheckReport(
        "========= Invalid x\n=========     at f in kernel.cu:99999999999999999999\n"
        "=========     by thread (1,2) in block (3,4,5)\n");
    ASSERT_EQ(big.findings.size(), 1u);
    EXPECT_EQ(big.findings[0].line, 0) << "a line number out of range names no line";
    EXPECT_FALSE(big.findings[0].located) << "a thread of two numbers is not a thread";
}

} // namespace
} // namespace warpscope::gpu::test
