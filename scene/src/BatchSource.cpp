#include "warpscope/scene/BatchSource.h"

#include "warpscope/scene/SceneFile.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <filesystem>

namespace warpscope::scene {
namespace {

constexpr const char* kSourceFormat = "warpscope-batch-source";
constexpr int kSourceVersion = 1;
// A source file is a few kilobytes; anything far larger is not one.
constexpr qint64 kMaxSourceBytes = 1 << 20;

QString text(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

std::string batchSourcePath(const std::string& resultsCsv)
{
    std::filesystem::path path(resultsCsv);
    path.replace_extension(".source.json");
    return path.string();
}

gpu::Status writeBatchSource(const std::string& resultsCsv, const BatchSource& source)
{
    const QJsonObject columns{{"id", text(source.columns.id)},
                              {"t", text(source.columns.t)},
                              {"y", text(source.columns.y)},
                              {"dy", text(source.columns.dy)}};
    const QJsonObject object{
        {"format", kSourceFormat},     {"version", kSourceVersion},
        {"input", text(source.input)}, {"table", source.table},
        {"columns", columns},          {"timeFormat", gpu::timeFormatName(source.timeFormat)},
        {"peaks", source.peaks},       {"periodogram", toJson(source.scene)}};
    const std::string path = batchSourcePath(resultsCsv);
    QSaveFile file(text(path));
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(object).toJson()) < 0 ||
        !file.commit())
        return gpu::Status::failure("Cannot write " + path + ": " +
                                    file.errorString().toStdString());
    return gpu::Status::success();
}

gpu::Status readBatchSource(const std::string& resultsCsv, BatchSource& source, bool& found)
{
    const std::string path = batchSourcePath(resultsCsv);
    found = false;
    QFile file(text(path));
    if (!file.exists())
        return gpu::Status::success();
    found = true;
    const auto bad = [&](const std::string& why) {
        return gpu::Status::failure(path + ": " + why);
    };
    if (file.size() > kMaxSourceBytes)
        return bad("too large for a batch source file");
    if (!file.open(QIODevice::ReadOnly))
        return bad("cannot be read: " + file.errorString().toStdString());
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &error);
    if (!document.isObject())
        return bad("not JSON: " + error.errorString().toStdString());
    const QJsonObject o = document.object();
    if (o.value("format").toString() != kSourceFormat)
        return bad("not a warpscope-batch source file");
    if (o.value("version").toInt() != kSourceVersion)
        return bad("version " + std::to_string(o.value("version").toInt()) +
                   " is not known here (1 is)");
    BatchSource s;
    if (!o.value("input").isString() || o.value("input").toString().isEmpty())
        return bad("input must name the batch's input");
    s.input = o.value("input").toString().toStdString();
    s.table = o.value("table").toBool();
    const QJsonObject columns = o.value("columns").toObject();
    for (auto [key, field] : {std::pair{"id", &s.columns.id}, std::pair{"t", &s.columns.t},
                              std::pair{"y", &s.columns.y}, std::pair{"dy", &s.columns.dy}}) {
        if (columns.contains(key) && !columns.value(key).isString())
            return bad(std::string("columns.") + key + " must be a string");
        *field = columns.value(key).toString().toStdString();
    }
    if (s.table && s.columns.id.empty())
        return bad("a table's columns.id must name its id column");
    const QString format = o.value("timeFormat").toString();
    bool known = false;
    for (int f = int(gpu::TimeFormat::Auto); f <= int(gpu::TimeFormat::Bkjd) && !known; ++f)
        if (format == gpu::timeFormatName(gpu::TimeFormat(f))) {
            s.timeFormat = gpu::TimeFormat(f);
            known = true;
        }
    if (!known)
        return bad("timeFormat '" + format.toStdString() + "' is not known");
    s.peaks = o.value("peaks").toInt(-1);
    if (s.peaks < 1)
        return bad("peaks must be a count of peaks");
    QString problem;
    const std::optional<PeriodogramScene> scene =
        periodogramFromJson(o.value("periodogram").toObject(), &problem);
    if (!scene)
        return bad(problem.toStdString());
    s.scene = *scene;
    source = std::move(s);
    return gpu::Status::success();
}

std::string batchObjectFile(const BatchSource& source, const std::string& id)
{
    namespace fs = std::filesystem;
    if (source.table || id.empty())
        return {};
    if (fs::path(id).has_parent_path()) // two files of one name: the id is the path
        return id;
    // A glob names its files in its last part; a folder is itself, even once moved away.
    const fs::path input(source.input);
    const bool glob = input.filename().string().find_first_of("*?[") != std::string::npos;
    return ((glob ? input.parent_path() : input) / id).string();
}

} // namespace warpscope::scene
