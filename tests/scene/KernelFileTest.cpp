#include "warpscope/scene/KernelFile.h"

#include "warpscope/scene/KernelScene.h"

#include <QFile>
#include <QTemporaryDir>
#include <gtest/gtest.h>
#include <sys/stat.h>

using namespace warpscope;

namespace {

QString write(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(bytes);
    return path;
}

std::string errorOf(const QString& path)
{
    return scene::loadKernelFile(path).error.toStdString();
}

} // namespace

TEST(KernelFile, TheShapeLineSaysTheShapeAndIsNotSource)
{
    const scene::KernelFileRead perNode =
        scene::parseKernelFile("// warpscope kernel: per node\nreturn 1.0f;\n", "k.cu");
    ASSERT_TRUE(perNode.kernel) << perNode.error.toStdString();
    EXPECT_EQ(perNode.kernel->shape, gpu::KernelShape::PerNode);
    EXPECT_EQ(perNode.kernel->code, "return 1.0f;\n");
    const scene::KernelFileRead whole =
        scene::parseKernelFile("// warpscope kernel: whole kernel\r\nvoid f() {}", "k.cu");
    ASSERT_TRUE(whole.kernel);
    EXPECT_EQ(whole.kernel->shape, gpu::KernelShape::WholeKernel);
    EXPECT_EQ(whole.kernel->code, "void f() {}");
    // Without the line, a __global__ function makes a whole kernel, and every line is source.
    const scene::KernelFileRead bare =
        scene::parseKernelFile("// mine\n__global__ void k() {}\n", "k.cu");
    ASSERT_TRUE(bare.kernel);
    EXPECT_EQ(bare.kernel->shape, gpu::KernelShape::WholeKernel);
    EXPECT_EQ(bare.kernel->code, "// mine\n__global__ void k() {}\n");
    EXPECT_EQ(scene::parseKernelFile("return 2.0f;", "k.cu").kernel->shape,
              gpu::KernelShape::PerNode);
}

TEST(KernelFile, ASavedKernelReadsBack)
{
    for (const gpu::KernelExample& e : gpu::kernelExamples()) {
        const gpu::KernelSource source{e.source.shape, e.source.code};
        const scene::KernelFileRead read =
            scene::parseKernelFile(scene::kernelFileText(source), "k.cu");
        ASSERT_TRUE(read.kernel) << e.name;
        EXPECT_EQ(read.kernel->shape, source.shape) << e.name;
        EXPECT_EQ(read.kernel->code, source.code) << e.name;
    }
}

// The editor's text would end at a NUL and the rest never compile, so such text is refused,
// the byte named, and so is an empty file.
TEST(KernelFile, ANulByteOrNothingIsRefusedNamingTheFile)
{
    EXPECT_EQ(scene::parseKernelFile(QByteArray("return 1.0f;\0for (;;);", 22), "k.cu")
                  .error.toStdString(),
              "k.cu: holds a NUL byte at byte 12: a kernel's source is text, not binary data");
    EXPECT_EQ(scene::parseKernelFile(QByteArray(1, '\0'), "nul.cu").error.toStdString(),
              "nul.cu: holds a NUL byte at byte 0: a kernel's source is text, not binary data");
    EXPECT_FALSE(scene::parseKernelFile(QByteArray(1, '\0'), "nul.cu").kernel);
    EXPECT_EQ(scene::parseKernelFile({}, "empty.cu").error.toStdString(),
              "empty.cu: is empty: there is no kernel in it");
}

// Only a regular file is read, and no more of it than a kernel may have: a device or a pipe
// may never end.
TEST(KernelFile, OnlyRegularFilesOfAKernelsSizeAreRead)
{
    QTemporaryDir dir;
    EXPECT_EQ(errorOf(dir.filePath("none.cu")),
              (dir.filePath("none.cu") + ": no such file").toStdString());
    EXPECT_EQ(errorOf(dir.path()),
              (dir.path() + ": is a folder, not a kernel's source").toStdString());
    const std::string notRegular = "is not a regular file (a device, a pipe or a socket)";
    if (QFile::exists("/dev/zero"))
        EXPECT_NE(errorOf("/dev/zero").find("/dev/zero: " + notRegular), std::string::npos);
    const QString fifo = dir.filePath("fifo.cu");
    ASSERT_EQ(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    EXPECT_NE(errorOf(fifo).find(notRegular), std::string::npos);
    const QString big = write(dir, "big.cu", QByteArray((1 << 20) + 64, ' '));
    EXPECT_EQ(errorOf(big),
              (big + ": is larger than 1024 KiB, too large for a kernel's source").toStdString());
    // The largest source, saved with its shape line, opens.
    const QString largest =
        write(dir, "largest.cu",
              scene::kernelFileText({gpu::KernelShape::PerNode, std::string(1 << 20, ' ')}));
    const scene::KernelFileRead read = scene::loadKernelFile(largest);
    ASSERT_TRUE(read.kernel) << read.error.toStdString();
    EXPECT_EQ(read.kernel->code.size(), std::size_t(1) << 20);
    EXPECT_EQ(errorOf(write(dir, "empty.cu", {})),
              (dir.filePath("empty.cu") + ": is empty: there is no kernel in it").toStdString());
}

// The examples are the app's own code; any other source is someone's program.
TEST(KernelFile, OnlyTheExamplesAsWrittenAreTheAppsOwn)
{
    EXPECT_TRUE(scene::isExample(scene::KernelScene{}));
    for (const gpu::KernelExample& e : gpu::kernelExamples()) {
        scene::KernelScene k;
        k.shape = e.source.shape;
        k.source = e.source.code;
        EXPECT_TRUE(scene::isExample(k)) << e.name;
        k.source += " ";
        EXPECT_FALSE(scene::isExample(k)) << e.name;
    }
    scene::KernelScene other;
    other.shape = gpu::KernelShape::WholeKernel; // the per-node example's text, another shape
    EXPECT_FALSE(scene::isExample(other));
}
