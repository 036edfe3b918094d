#include "SceneExamples.h"
#include "warpscope/scene/SceneFile.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <algorithm>
#include <gtest/gtest.h>

using namespace warpscope;
using scene::parseScene;
using scene::examples::unusualScene;

namespace {

// A default scene file's text with one key of a section ("field", "lesson", "periodogram" or
// "lab") given as raw JSON, which may be anything, valid or not.
QByteArray withValue(const char* section, const char* key, const QByteArray& json)
{
    QJsonObject root = QJsonDocument::fromJson(scene::sceneToJson(scene::Scene{})).object();
    const bool lesson = QByteArray(section) == "lesson";
    QJsonObject field = root["field"].toObject();
    QJsonObject part = lesson ? field["lesson"].toObject() : root[section].toObject();
    part.remove(key); // JSON objects may repeat a key, and Qt keeps the last
    if (lesson)
        field["lesson"] = part;
    root[lesson ? "field" : section] = lesson ? field : part;
    QByteArray text = QJsonDocument(root).toJson();
    const QByteArray marker = QByteArray("\"") + section + "\": {";
    const qsizetype at = text.indexOf(marker);
    EXPECT_GE(at, 0);
    text.insert(at + marker.size(), QByteArray("\"") + key + "\": " + json + ",");
    return text;
}

std::string errorOf(const QByteArray& bytes)
{
    const scene::SceneRead read = parseScene(bytes, "scene.json");
    EXPECT_FALSE(read.scene.has_value());
    return read.error.toStdString();
}

#define EXPECT_CONTAINS(text, part)                                                                \
    EXPECT_NE(std::string(text).find(part), std::string::npos) << "in: " << (text)

} // namespace

TEST(Scene, DefaultsAreValid)
{
    EXPECT_TRUE(scene::validate(scene::Scene{}).ok()) << scene::validate(scene::Scene{}).message();
    EXPECT_TRUE(scene::validate(unusualScene()).ok()) << scene::validate(unusualScene()).message();
}

TEST(Scene, RoundTripKeepsEveryValue)
{
    const scene::Scene original = unusualScene();
    const scene::SceneRead read = parseScene(scene::sceneToJson(original), "scene.json");
    ASSERT_TRUE(read.scene) << read.error.toStdString();
    EXPECT_TRUE(read.warnings.isEmpty());
    EXPECT_EQ(*read.scene, original);
    EXPECT_EQ(read.scene->field.params.latMin, -12.345678901234567); // to the last bit
}

// The memory lessons a teacher opens: each a built-in example (so it runs without asking),
// recording memory, on the Kernel page, with its text.
TEST(Scene, TheMemoryLessonsOpenReadyToTeach)
{
    for (const char* name : {"coalescing", "bank-conflicts", "divergence"}) {
        const scene::SceneRead read =
            scene::loadScene(QString(WARPSCOPE_LESSON_DIR) + "/" + name + ".scene.json");
        ASSERT_TRUE(read.scene) << name << ": " << read.error.toStdString();
        const scene::KernelScene& kernel = read.scene->kernel;
        EXPECT_EQ(read.scene->workspace, scene::Workspace::Kernel) << name;
        EXPECT_TRUE(kernel.recordMemory) << name;
        EXPECT_TRUE(scene::isExample(kernel)) << name;
        const auto& examples = gpu::kernelExamples();
        EXPECT_TRUE(std::any_of(examples.begin(), examples.end(), [&](const auto& e) {
            return e.source.code == kernel.source && !e.notes.empty();
        })) << name;
        EXPECT_EQ(read.scene->field.lesson.launch.block.x, 32) << name;
        EXPECT_EQ(read.scene->field.lesson.launch.block.y, 8) << name;
    }
}

TEST(Scene, SavedFileLoadsBack)
{
    QTemporaryDir dir;
    const QString path = dir.filePath("a.warpscope.json");
    ASSERT_EQ(scene::saveScene(unusualScene(), path), QString());
    const scene::SceneRead read = scene::loadScene(path);
    ASSERT_TRUE(read.scene) << read.error.toStdString();
    EXPECT_EQ(*read.scene, unusualScene());
    // Saving again replaces it whole.
    ASSERT_EQ(scene::saveScene(scene::Scene{}, path), QString());
    EXPECT_EQ(*scene::loadScene(path).scene, scene::Scene{});
}

TEST(Scene, SavingRefusesAnInvalidSceneAndAnUnwritablePlace)
{
    scene::Scene bad;
    bad.field.params.nx = 1;
    QTemporaryDir dir;
    EXPECT_CONTAINS(scene::saveScene(bad, dir.filePath("bad.json")).toStdString(),
                    "Columns (nx) must be between 2 and 16384, not 1");
    EXPECT_FALSE(QFile::exists(dir.filePath("bad.json")));
    EXPECT_CONTAINS(
        scene::saveScene(scene::Scene{}, dir.filePath("no/such/folder/a.json")).toStdString(),
        "cannot be written");
}

TEST(Scene, MissingSectionsAndKeysKeepTheirDefaults)
{
    const scene::SceneRead read =
        parseScene(R"({"format": "warpscope-scene", "version": 1, "field": {"nx": 500}})", "s");
    ASSERT_TRUE(read.scene) << read.error.toStdString();
    scene::Scene expected;
    expected.field.params.nx = 500;
    EXPECT_EQ(*read.scene, expected);
    EXPECT_TRUE(read.warnings.isEmpty());
}

TEST(Scene, UnknownKeysAreWarnedAboutAndIgnored)
{
    QByteArray text = withValue("lesson", "colour", "\"red\"");
    text.replace("\"version\": 1", "\"version\": 1, \"extra\": [1]");
    const scene::SceneRead read = parseScene(text, "scene.json");
    ASSERT_TRUE(read.scene) << read.error.toStdString();
    EXPECT_EQ(*read.scene, scene::Scene{});
    ASSERT_EQ(read.warnings.size(), 2);
    EXPECT_CONTAINS(read.warnings.join('\n').toStdString(),
                    "scene.json: field.lesson.colour: unknown key, ignored");
    EXPECT_CONTAINS(read.warnings.join('\n').toStdString(), "scene.json: extra: unknown key");
}

TEST(Scene, WrongTypesNameTheFileAndTheKey)
{
    EXPECT_CONTAINS(errorOf(withValue("field", "nx", "\"many\"")),
                    "scene.json: field.nx: expected a whole number");
    EXPECT_CONTAINS(errorOf(withValue("field", "latMin", "true")),
                    "scene.json: field.latMin: expected a number, found true");
    EXPECT_CONTAINS(errorOf(withValue("periodogram", "logX", "1")),
                    "periodogram.logX: expected true or false, found the number 1");
    EXPECT_CONTAINS(errorOf(withValue("periodogram", "normalization", "\"loud\"")),
                    "periodogram.normalization: expected one of \"standard\", \"model\"");
    EXPECT_CONTAINS(errorOf(withValue("lab", "length", "2.5")),
                    "lab.length: expected a whole number");
    EXPECT_CONTAINS(errorOf(withValue("lesson", "block", "[16, 16]")),
                    "field.lesson.block: expected an array of three whole numbers");
    EXPECT_CONTAINS(errorOf(withValue("lesson", "grid", "[1, \"x\", 1]")),
                    "field.lesson.grid.y: expected a whole number");
    EXPECT_CONTAINS(errorOf(withValue("field", "references", "[{\"lat\": 1}]")),
                    "field.references[0]: needs both \"lat\" and \"lon\"");
    EXPECT_CONTAINS(errorOf(withValue("field", "references", "[7]")),
                    "field.references[0]: expected an object");
    EXPECT_CONTAINS(errorOf(withValue("field", "colormap", "null")),
                    "field.colormap: expected text, found null");
    EXPECT_CONTAINS(errorOf(R"({"format": "warpscope-scene", "version": 1, "lab": [1]})"),
                    "scene.json: lab: expected an object, found an array");
    EXPECT_CONTAINS(errorOf(R"({"format": "warpscope-scene", "version": 1, "workspace": 1})"),
                    "workspace: expected one of \"field\", \"periodogram\"");
}

TEST(Scene, NonFiniteAndHugeNumbersAreRefused)
{
    // JSON has no NaN or infinity, and Qt's parser refuses a number that overflows to one.
    EXPECT_CONTAINS(errorOf(withValue("field", "latMin", "NaN")), "is not valid JSON");
    EXPECT_CONTAINS(errorOf(withValue("field", "latMin", "1e999")),
                    "scene.json: is not valid JSON: illegal number");
    EXPECT_CONTAINS(errorOf(withValue("field", "nx", "1e300")),
                    "field.nx: expected a whole number from -2147483648 to 2147483647");
    EXPECT_CONTAINS(errorOf(withValue("periodogram", "count", "1e30")),
                    "periodogram.count: expected a whole number");
    EXPECT_CONTAINS(errorOf(withValue("lab", "seed", "-1")), "lab.seed: expected a whole number");
    EXPECT_CONTAINS(errorOf(withValue("lesson", "block", "[1e300, 1, 1]")),
                    "field.lesson.block.x: expected a whole number");
}

TEST(Scene, TheTopLevelMustBeASceneOfThisVersion)
{
    EXPECT_CONTAINS(errorOf("[1, 2, 3]"), "scene.json: is not a scene file: the top level must");
    EXPECT_CONTAINS(errorOf("\"text\""), "scene.json: is not");
    EXPECT_EQ(errorOf(""), "scene.json: is empty: there is no scene in it");
    EXPECT_CONTAINS(errorOf(R"({"version": 1})"),
                    "scene.json: format: expected \"warpscope-scene\"");
    EXPECT_CONTAINS(errorOf(R"({"format": "warpscope-scene"})"),
                    "scene.json: version: expected 1, found nothing");
    EXPECT_CONTAINS(errorOf(R"({"format": "warpscope-scene", "version": 2})"),
                    "version 2 is newer than this Warpscope reads (1)");
    EXPECT_CONTAINS(errorOf(R"({"format": "warpscope-scene", "version": "1"})"),
                    "version: expected a whole number");
}

TEST(Scene, TruncatedAndBinaryFilesAreRefused)
{
    const QByteArray whole = scene::sceneToJson(unusualScene());
    for (qsizetype n : {qsizetype(1), whole.size() / 3, whole.size() / 2, whole.size() - 2})
        EXPECT_CONTAINS(errorOf(whole.left(n)), "scene.json: is not valid JSON");
    QByteArray binary(4096, '\0');
    for (int i = 0; i < binary.size(); ++i)
        binary[i] = char((i * 131) % 256);
    EXPECT_CONTAINS(errorOf(binary), "scene.json: is not a scene file (it holds binary data)");
    EXPECT_CONTAINS(errorOf("{\"format\": \"warpscope-scene\", \xff\xfe}"), "is not valid JSON");
}

TEST(Scene, FilesThatAreNotScenesAreRefused)
{
    QTemporaryDir dir;
    EXPECT_CONTAINS(scene::loadScene(dir.filePath("none.json")).error.toStdString(),
                    "none.json: no such file");
    EXPECT_CONTAINS(scene::loadScene(dir.path()).error.toStdString(),
                    "is a folder, not a scene file");
    const QString big = dir.filePath("big.json");
    QFile f(big);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    ASSERT_TRUE(f.resize(scene::kMaxSceneFileBytes + 1));
    f.close();
    const scene::SceneRead read = scene::loadScene(big);
    EXPECT_FALSE(read.scene);
    EXPECT_CONTAINS(read.error.toStdString(), "big.json: is larger than 16 MiB");
    EXPECT_CONTAINS(errorOf(QByteArray(scene::kMaxSceneFileBytes + 1, ' ')), "larger than 16 MiB");
    EXPECT_EQ(errorOf(" \n"), "scene.json: is empty: there is no scene in it");
    if (QFile::exists("/dev/null"))
        EXPECT_CONTAINS(scene::loadScene("/dev/null").error.toStdString(), "is not a regular file");
}

TEST(Scene, ValidationUsesTheComputeLayersMessages)
{
    scene::Scene s;
    s.field.params.latMin = 95;
    EXPECT_CONTAINS(scene::validate(s).message(),
                    "field: Minimum latitude must lie in [-90, 90], not 95");
    EXPECT_CONTAINS(errorOf(withValue("field", "latMin", "95")),
                    "scene.json: field: Minimum latitude must lie in [-90, 90], not 95");
    s = {};
    s.field.params.references.assign(65, {0.0, 0.0});
    EXPECT_CONTAINS(scene::validate(s).message(), "At most 64 reference points are supported");
    s = {};
    s.field.lesson.launch.block = {64, 32, 1};
    EXPECT_CONTAINS(scene::validate(s).message(), "exceed the limit of 1024 on any CUDA GPU");
    s = {};
    s.field.lesson.gridFitted = false;
    s.field.lesson.launch.grid = {0, 4, 1};
    EXPECT_CONTAINS(scene::validate(s).message(), "must be at least 1, not 0");
    s = {};
    s.field.colormap = "../../etc/passwd";
    EXPECT_CONTAINS(scene::validate(s).message(), "The colormap must be named");
    s = {};
    s.periodogram.fmin = 5;
    s.periodogram.fmax = 1;
    EXPECT_CONTAINS(scene::validate(s).message(),
                    "periodogram: The maximum frequency must be above the minimum");
    s = {};
    s.periodogram.count = 0;
    EXPECT_CONTAINS(scene::validate(s).message(), "The number of frequencies must be between 1");
    s = {};
    s.periodogram.blockThreads = 1024;
    EXPECT_CONTAINS(scene::validate(s).message(), "The periodogram kernel runs at most 512");
    s = {};
    s.periodogram.points = 2;
    EXPECT_CONTAINS(scene::validate(s).message(), "Points must lie in [3, 10000000], not 2");
    s = {};
    s.periodogram.peaks = 21;
    EXPECT_CONTAINS(scene::validate(s).message(), "Peaks must lie in [1, 20], not 21");
    s = {};
    s.lab.arrays = 65;
    EXPECT_CONTAINS(scene::validate(s).message(),
                    "lab: The number of arrays must be between 1 and 64; it is 65");
    s = {};
    s.lab.length = 0;
    EXPECT_CONTAINS(scene::validate(s).message(), "The array length must be between 1 and");
}

TEST(Scene, TheFittedGridCoversTheMesh)
{
    scene::LessonScene lesson;
    lesson.launch.block = {32, 8, 1};
    EXPECT_EQ(scene::lessonGrid(lesson, 1000, 1000), (gpu::Dim3{32, 125, 1}));
    lesson.gridFitted = false;
    lesson.launch.grid = {2, 3, 1};
    EXPECT_EQ(scene::lessonGrid(lesson, 1000, 1000), (gpu::Dim3{2, 3, 1}));
}

TEST(Scene, APeriodogramSectionStandsAlone)
{
    const scene::PeriodogramScene p = unusualScene().periodogram;
    const auto back = scene::periodogramFromJson(scene::toJson(p));
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, p);
    QString error;
    QJsonObject bad = scene::toJson(p);
    bad["points"] = "many";
    EXPECT_FALSE(scene::periodogramFromJson(bad, &error));
    EXPECT_CONTAINS(error.toStdString(), "periodogram.points: expected a whole number");
    scene::PeriodogramScene other = p;
    other.normalization = gpu::Normalization::Log;
    other.peaks = 3;
    EXPECT_EQ(scene::differingKeys(p, other), (QStringList{"normalization", "peaks"}));
    EXPECT_TRUE(scene::differingKeys(p, p).isEmpty());
}

TEST(Scene, DetrendAndMasksRoundTripAndOlderFilesKeepTheDefaults)
{
    scene::PeriodogramScene p;
    p.detrend = {gpu::DetrendMethod::Polynomial, 3, 1.0};
    p.masks = {{2451545.0, 2451546.5}};
    QString error;
    const auto back = scene::periodogramFromJson(scene::toJson(p), &error);
    ASSERT_TRUE(back) << error.toStdString();
    EXPECT_EQ(*back, p);
    // A file written before detrending existed: no detrend keys, no masks.
    QJsonObject older = scene::toJson(scene::PeriodogramScene{});
    for (const char* key : {"detrend", "detrendDegree", "detrendWindow", "masks"})
        older.remove(key);
    const auto read = scene::periodogramFromJson(older, &error);
    ASSERT_TRUE(read) << error.toStdString();
    EXPECT_EQ(read->detrend, gpu::DetrendOptions{});
    EXPECT_TRUE(read->masks.empty());
}

TEST(Scene, HostileDetrendAndMasksAreRefusedWithAMessage)
{
    EXPECT_CONTAINS(errorOf(withValue("periodogram", "detrendWindow", "-3")),
                    "running median's window must be a finite time above 0, not -3");
    // Checked whatever the method, so that choosing another never meets a bad value.
    EXPECT_CONTAINS(errorOf(withValue("periodogram", "detrend", "\"median\"")
                                .replace("\"detrendWindow\": 10", "\"detrendWindow\": 0")),
                    "window must be a finite time above 0, not 0");
    EXPECT_CONTAINS(errorOf(withValue("periodogram", "detrend", "\"polynomial\"")
                                .replace("\"detrendDegree\": 1", "\"detrendDegree\": 9")),
                    "degree must be 0 to 5, not 9");
    EXPECT_CONTAINS(errorOf(withValue("periodogram", "detrend", "\"spline\"")),
                    "periodogram.detrend: expected one of \"none\", \"polynomial\", \"median\"");
    EXPECT_CONTAINS(errorOf(withValue("periodogram", "masks", "[[5, 4]]")),
                    "Masked range 1 is reversed: [5, 4]");
    EXPECT_CONTAINS(errorOf(withValue("periodogram", "masks", "[[1, 2], [3]]")),
                    "periodogram.masks: item 1: expected [t0, t1], two numbers");
    EXPECT_CONTAINS(errorOf(withValue("periodogram", "masks", "[[1, \"x\"]]")),
                    "item 0: expected [t0, t1]");
    EXPECT_CONTAINS(errorOf(withValue("periodogram", "masks", "{\"t0\": 1}")),
                    "periodogram.masks: expected an array of [t0, t1] pairs");
    // JSON has no NaN: a NaN range only reaches validate() from code.
    scene::Scene nan;
    nan.periodogram.masks = {{0.0, 1.0}, {std::nan(""), 2.0}};
    EXPECT_CONTAINS(scene::validate(nan).message(), "Masked range 2 needs finite times");
    // A million ranges are refused by their count, before any is read.
    QJsonArray many;
    for (int i = 0; i < 1'000'000; ++i)
        many.append(QJsonArray{i, i + 0.5});
    QJsonObject object = scene::toJson(scene::PeriodogramScene{});
    object["masks"] = many;
    QString error;
    EXPECT_FALSE(scene::periodogramFromJson(object, &error));
    EXPECT_CONTAINS(error.toStdString(), "1000000 masked ranges, more than the 10000 allowed");
    scene::Scene tooMany;
    tooMany.periodogram.masks.assign(gpu::kMaxMasks + 1, {0.0, 1.0});
    EXPECT_CONTAINS(scene::validate(tooMany).message(), "at most 10000 are allowed");
}

TEST(Scene, TermsAndPrewhiteningRoundTripAndOlderFilesKeepTheDefaults)
{
    scene::PeriodogramScene p;
    p.nterms = 6;
    p.prewhitened = {{0.25, 3.0, 0.999, 1e-6, 0.1, 0.01}};
    p.prewhitenEpoch = -12.5;
    QString error;
    const auto back = scene::periodogramFromJson(scene::toJson(p), &error);
    ASSERT_TRUE(back) << error.toStdString();
    EXPECT_EQ(*back, p);
    QJsonObject older = scene::toJson(scene::PeriodogramScene{});
    older.remove("nterms");
    older.remove("prewhitening");
    const auto read = scene::periodogramFromJson(older, &error);
    ASSERT_TRUE(read) << error.toStdString();
    EXPECT_EQ(read->nterms, 1);
    EXPECT_TRUE(read->prewhitened.empty());
}

TEST(Scene, HostileTermsAndPrewhiteningAreRefusedWithAMessage)
{
    EXPECT_CONTAINS(errorOf(withValue("periodogram", "nterms", "7")),
                    "Terms must lie in [1, 6], not 7");
    EXPECT_CONTAINS(errorOf(withValue("periodogram", "nterms", "2.5")), "periodogram.nterms");
    const auto prewhitening = [](const QByteArray& sinusoids) {
        return withValue("periodogram", "prewhitening",
                         "{\"epoch\": 0, \"sinusoids\": " + sinusoids + "}");
    };
    EXPECT_CONTAINS(errorOf(prewhitening("[{\"frequency\": -1, \"amplitude\": 1}]")),
                    "Prewhitened frequency 1 needs finite values, a frequency above 0");
    EXPECT_CONTAINS(errorOf(prewhitening("[{\"frequency\": 1, \"phase\": 1.5}]")),
                    "a phase in [0, 1)");
    EXPECT_CONTAINS(errorOf(prewhitening("[{\"frequency\": \"x\"}]")),
                    "periodogram.prewhitening.sinusoids[0].frequency: expected a number");
    EXPECT_CONTAINS(errorOf(prewhitening("[3]")), "sinusoids item 0: expected an object");
    EXPECT_CONTAINS(errorOf(prewhitening("{}")), "periodogram.prewhitening.sinusoids: expected "
                                                 "an array");
    EXPECT_CONTAINS(errorOf(withValue("periodogram", "prewhitening", "[1]")),
                    "periodogram.prewhitening: expected an object");
    QJsonArray many;
    for (int i = 0; i < 1000; ++i)
        many.append(QJsonObject{{"frequency", 1.0 + i}});
    QJsonObject object = scene::toJson(scene::PeriodogramScene{});
    object["prewhitening"] = QJsonObject{{"epoch", 0.0}, {"sinusoids", many}};
    QString error;
    EXPECT_FALSE(scene::periodogramFromJson(object, &error));
    EXPECT_CONTAINS(error.toStdString(), "1000 prewhitened sinusoids, more than the 100 allowed");
}

TEST(Scene, TheKernelRoundTripsAndOlderFilesKeepTheTemplate)
{
    // Every float value, not only the ones a decimal prints exactly.
    scene::Scene s;
    s.workspace = scene::Workspace::Kernel;
    s.kernel.values = {{"a", 0.1f}, {"b", 3.4028235e38f}, {"c", -1.17549435e-38f}};
    const scene::SceneRead read = parseScene(scene::sceneToJson(s), "scene.json");
    ASSERT_TRUE(read.scene) << read.error.toStdString();
    EXPECT_TRUE(read.warnings.isEmpty());
    EXPECT_EQ(*read.scene, s);
    EXPECT_EQ(read.scene->kernel.values[0].value, 0.1f);
    // A file written before kernels were saved opens on the per-node template.
    QJsonObject root = QJsonDocument::fromJson(scene::sceneToJson(scene::Scene{})).object();
    root.remove("kernel");
    const scene::SceneRead older = parseScene(QJsonDocument(root).toJson(), "old.json");
    ASSERT_TRUE(older.scene) << older.error.toStdString();
    EXPECT_EQ(older.scene->kernel.shape, gpu::KernelShape::PerNode);
    EXPECT_EQ(older.scene->kernel.source, gpu::kernelExamples().front().source.code);
    EXPECT_TRUE(older.scene->kernel.values.empty());
}

// An int's values at the ends of int's range (beyond a float's precision) and a bool's, as a
// file written by hand holds them; a file of float values written before ints keeps them.
TEST(Scene, IntAndBoolValuesRoundTripExactly)
{
    scene::Scene s;
    s.workspace = scene::Workspace::Kernel;
    s.kernel.values = {
        {"n", 2147483647.0}, {"m", -2147483648.0}, {"odd", 16777217.0}, {"on", 1.0}, {"off", 0.0}};
    const scene::SceneRead read = parseScene(scene::sceneToJson(s), "scene.json");
    ASSERT_TRUE(read.scene) << read.error.toStdString();
    EXPECT_EQ(*read.scene, s);
    const QByteArray written =
        R"({"format": "warpscope-scene", "version": 1, "kernel": {"params": [)"
        R"({"name": "odd", "value": 16777217}, {"name": "k", "value": 0.25}]}})";
    const scene::SceneRead byHand = parseScene(written, "hand.json");
    ASSERT_TRUE(byHand.scene) << byHand.error.toStdString();
    ASSERT_EQ(byHand.scene->kernel.values.size(), 2u);
    EXPECT_EQ(byHand.scene->kernel.values[0].value, 16777217.0);
    EXPECT_EQ(byHand.scene->kernel.values[1].value, 0.25);
}

TEST(Scene, HostileKernelValuesAreRefusedWithAMessage)
{
    EXPECT_CONTAINS(errorOf(withValue("kernel", "template", "\"perWarp\"")),
                    "scene.json: kernel.template: expected one of \"perNode\", \"wholeKernel\", "
                    "found the text \"perWarp\"");
    EXPECT_CONTAINS(errorOf(withValue("kernel", "template", "1")), "kernel.template: expected one");
    EXPECT_CONTAINS(errorOf(withValue("kernel", "source", "42")),
                    "kernel.source: expected text, found the number 42");
    EXPECT_CONTAINS(errorOf(withValue("kernel", "source", "[\"return 1;\"]")),
                    "kernel.source: expected text, found an array");
    EXPECT_CONTAINS(errorOf(withValue("kernel", "source", "\"return 1;\\u0000\"")),
                    "kernel: The source holds a NUL character at byte 9: it is not text");
    // 2 MiB of source: refused by its length (the file itself is under the 16 MiB limit).
    const QByteArray huge = '"' + QByteArray(2 << 20, 'x') + '"';
    EXPECT_CONTAINS(errorOf(withValue("kernel", "source", huge)),
                    "kernel.source: 2097152 characters, more than the 1048576 bytes allowed");
    // Multi-byte characters count as their UTF-8 bytes: 600000 of them are 1.8 MB.
    QByteArray wide = "\"";
    for (int i = 0; i < 600000; ++i)
        wide += "\xe2\x82\xac"; // the euro sign, 3 bytes
    wide += '"';
    EXPECT_CONTAINS(errorOf(withValue("kernel", "source", wide)),
                    "kernel.source: 1800000 bytes, more than the 1048576 allowed");
    EXPECT_CONTAINS(errorOf(withValue("kernel", "params", "{\"k\": 1}")),
                    "kernel.params: expected an array, found an object");
    EXPECT_CONTAINS(errorOf(withValue("kernel", "params", "[3]")),
                    "kernel.params: item 0: expected {\"name\": ..., \"value\": ...}");
    EXPECT_CONTAINS(errorOf(withValue("kernel", "params", "[{\"name\": \"k\", \"value\": \"1\"}]")),
                    "kernel.params[0].value: expected a number, found the text \"1\"");
    EXPECT_CONTAINS(errorOf(withValue("kernel", "params", "[{\"name\": \"k\"}]")),
                    "kernel.params: item 0: needs both \"name\" and \"value\"");
    EXPECT_CONTAINS(errorOf(withValue("kernel", "params", "[{\"name\": \"k\", \"value\": 1e300}]")),
                    "is beyond float's range");
    EXPECT_CONTAINS(
        errorOf(withValue("kernel", "params", "[{\"name\": \"k; system(1)\", \"value\": 1}]")),
        "kernel: A parameter must be named like a C variable");
    EXPECT_CONTAINS(errorOf(withValue("kernel", "params",
                                      "[{\"name\": \"k\", \"value\": 1}, {\"name\": \"k\", "
                                      "\"value\": 2}]")),
                    "The parameter 'k' has two values");
    QByteArray many = "[";
    for (int i = 0; i < 100000; ++i)
        many += QByteArray(i ? "," : "") + "{\"name\": \"p" + QByteArray::number(i) +
                "\", \"value\": 1}";
    many += "]";
    EXPECT_CONTAINS(errorOf(withValue("kernel", "params", many)),
                    "kernel.params: 100000 parameter values, more than the 32");
    EXPECT_CONTAINS(errorOf(withValue("kernel", "options", "\"-use_fast_math\"")),
                    "kernel.options: expected an array, found the text");
    EXPECT_CONTAINS(
        errorOf(withValue("kernel", "options", "[true]")),
        "kernel.options: item 0: expected an option of up to 64 characters, found true");
    EXPECT_CONTAINS(errorOf(withValue("kernel", "options", "[\"--include-path=/etc\"]")),
                    "The compiler option '--include-path=/etc' is not one the workbench passes");
    EXPECT_CONTAINS(errorOf(withValue("kernel", "options", "[\"-maxrregcount=4\"]")),
                    "'-maxrregcount=4' needs a register count from 16 to 255");
    EXPECT_CONTAINS(errorOf(withValue("kernel", "options", "[\"-ftz=maybe\"]")),
                    "'-ftz=maybe' needs true or false");
    EXPECT_CONTAINS(
        errorOf(withValue("kernel", "options",
                          "[" + QByteArray("\"-lineinfo\",").repeated(20) + "\"-lineinfo\"]")),
        "kernel.options: 21 options, more than the 16 allowed");
    EXPECT_CONTAINS(errorOf(withValue("kernel", "options", "[\"" + QByteArray(100, 'x') + "\"]")),
                    "kernel.options: item 0: expected an option of up to 64 characters");
    QJsonObject root = QJsonDocument::fromJson(scene::sceneToJson(scene::Scene{})).object();
    root["kernel"] = 5;
    EXPECT_CONTAINS(errorOf(QJsonDocument(root).toJson()),
                    "kernel: expected an object, found the number 5");
    // Values only code can make.
    scene::Scene nan;
    nan.kernel.values = {{"k", std::nanf("")}};
    EXPECT_CONTAINS(scene::validate(nan).message(),
                    "kernel: The value of the parameter 'k' is not finite");
}
