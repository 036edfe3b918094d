// The scene file's declared keys: each is read and written, its range enforced, and files
// written before the keys were declared read as they did.
#include "SceneExamples.h"
#include "warpscope/scene/Options.h"
#include "warpscope/scene/SceneFile.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <cmath>
#include <gtest/gtest.h>

using namespace warpscope;
using scene::Option;

namespace {

QString text(std::string_view s)
{
    return QString::fromLatin1(s.data(), qsizetype(s.size()));
}

// Every declared scene key, with an option or alone.
std::vector<const Option*> sceneKeys()
{
    std::vector<const Option*> keys;
    for (const auto list : {scene::declaredOptions(), scene::declaredSceneKeys()})
        for (const Option& option : list)
            if (!std::holds_alternative<std::monostate>(option.at))
                keys.push_back(&option);
    return keys;
}

QJsonObject jsonOf(const scene::Scene& s)
{
    return QJsonDocument::fromJson(scene::sceneToJson(s)).object();
}

// The value at a dotted key ("field.lesson.grid") of a scene file's JSON.
QJsonValue valueAt(const QJsonObject& root, const QString& key)
{
    const QStringList parts = key.split('.');
    QJsonObject object = root;
    for (qsizetype i = 0; i + 1 < parts.size(); ++i)
        object = object.value(parts[i]).toObject();
    return object.value(parts.back());
}

QJsonObject withValueAt(QJsonObject root, const QStringList& parts, const QJsonValue& value)
{
    if (parts.size() == 1) {
        root[parts[0]] = value;
        return root;
    }
    root[parts[0]] = withValueAt(root.value(parts[0]).toObject(), parts.mid(1), value);
    return root;
}

// The default scene's file with key's value replaced.
QByteArray defaultWith(const QString& key, const QJsonValue& value)
{
    return QJsonDocument(withValueAt(jsonOf(scene::Scene{}), key.split('.'), value)).toJson();
}

// The keys with a value of their own in a scene file's JSON: its leaves, by dotted path.
QSet<QString> leaves(const QJsonObject& object, const QString& prefix = {})
{
    QSet<QString> keys;
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString key = prefix + it.key();
        // The prewhitening is one value, an object of its own.
        if (it.value().isObject() && key != "periodogram.prewhitening")
            keys += leaves(it.value().toObject(), key + ".");
        else
            keys << key;
    }
    return keys;
}

QByteArray fixture(const char* name)
{
    QFile file(QStringLiteral(WARPSCOPE_FIXTURE_DIR "/scenes/") + name);
    EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << name;
    return file.readAll();
}

} // namespace

TEST(SceneKeys, EachKeyTheFileHoldsIsDeclaredOnce)
{
    QSet<QString> declared;
    for (const Option* option : sceneKeys()) {
        EXPECT_FALSE(declared.contains(text(option->sceneKey))) << option->sceneKey;
        declared << text(option->sceneKey);
    }
    QSet<QString> written = leaves(jsonOf(scene::Scene{}));
    written -= QSet<QString>{"format", "version"};
    EXPECT_EQ(declared, written);
}

// Each key, given the unusual scene's value in an otherwise default file, reads as that value
// and is written back as it was.
TEST(SceneKeys, EveryDeclaredKeyRoundTrips)
{
    const QJsonObject unusual = jsonOf(scene::examples::unusualScene());
    for (const Option* option : sceneKeys()) {
        const QString key = text(option->sceneKey);
        SCOPED_TRACE(key.toStdString());
        const QJsonValue value = valueAt(unusual, key);
        ASSERT_NE(value, valueAt(jsonOf(scene::Scene{}), key)) << "the example changes nothing";
        const scene::SceneRead read = scene::parseScene(defaultWith(key, value), "s.json");
        ASSERT_TRUE(read.scene) << qPrintable(read.error);
        EXPECT_TRUE(read.warnings.isEmpty());
        EXPECT_NE(*read.scene, scene::Scene{});
        EXPECT_EQ(valueAt(jsonOf(*read.scene), key), value);
    }
}

TEST(SceneKeys, DeclaredDefaultsAreTheScenesDefaults)
{
    const QJsonObject defaults = jsonOf(scene::Scene{});
    int checked = 0;
    for (const Option& option : scene::declaredSceneKeys()) {
        if (option.defaultValue.empty())
            continue;
        SCOPED_TRACE(std::string(option.sceneKey));
        const QJsonValue value = valueAt(defaults, text(option.sceneKey));
        const QString declared = text(option.defaultValue);
        if (value.isDouble())
            EXPECT_EQ(value.toDouble(), declared.toDouble());
        else if (value.isBool())
            EXPECT_EQ(value.toBool() ? "true" : "false", declared.toStdString());
        else
            EXPECT_EQ(value.toString().toStdString(), declared.toStdString());
        ++checked;
    }
    EXPECT_GE(checked, 25);
}

// Just beyond each edge of a key's declared range, in an otherwise default file, the reader
// refuses the file, naming the part of the scene.
TEST(SceneKeys, TheReaderEnforcesEachDeclaredRange)
{
    int checked = 0;
    for (const Option* option : sceneKeys()) {
        if (!option->range ||
            (option->type != scene::OptionType::Number && option->type != scene::OptionType::Whole))
            continue;
        const bool whole = option->type == scene::OptionType::Whole;
        for (const double bad :
             {whole ? option->range->min - 1 : std::nextafter(option->range->min, -INFINITY),
              whole ? option->range->max + 1 : std::nextafter(option->range->max, INFINITY)}) {
            const QString key = text(option->sceneKey);
            SCOPED_TRACE((key + " " + QString::number(bad, 'g', 17)).toStdString());
            const scene::SceneRead read = scene::parseScene(defaultWith(key, bad), "s");
            EXPECT_FALSE(read.scene);
            EXPECT_TRUE(read.error.startsWith("s: " + key.section('.', 0, 0)))
                << qPrintable(read.error);
            ++checked;
        }
    }
    EXPECT_GE(checked, 2 * 19);
}

TEST(SceneKeys, UnknownKeysOfEachPartAreIgnoredWithAWarning)
{
    for (const QString part : {"periodogram", "lab", "kernel"}) {
        const scene::SceneRead read =
            scene::parseScene(defaultWith(part + ".colour", QStringLiteral("red")), "s.json");
        ASSERT_TRUE(read.scene) << qPrintable(read.error);
        EXPECT_EQ(*read.scene, scene::Scene{});
        EXPECT_EQ(read.warnings, QStringList{"s.json: " + part + ".colour: unknown key, ignored"});
    }
}

// Files the writer wrote before the keys were declared read as the scenes they were written
// from, and are written again byte for byte.
TEST(SceneKeys, FilesWrittenBeforeTheDeclarationsReadAsTheyDid)
{
    const std::pair<const char*, scene::Scene> files[]{
        {"default.scene.json", scene::Scene{}},
        {"unusual.scene.json", scene::examples::unusualScene()},
        {"kernel.scene.json", scene::examples::kernelScene()}};
    for (const auto& [name, expected] : files) {
        SCOPED_TRACE(name);
        const QByteArray bytes = fixture(name);
        const scene::SceneRead read = scene::parseScene(bytes, name);
        ASSERT_TRUE(read.scene) << qPrintable(read.error);
        EXPECT_TRUE(read.warnings.isEmpty());
        EXPECT_EQ(*read.scene, expected);
        EXPECT_EQ(scene::sceneToJson(*read.scene), bytes);
    }
}
