#include "warpscope/scene/SceneFile.h"

#include "SceneNames.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSaveFile>
#include <QSet>
#include <array>
#include <cmath>
#include <limits>

namespace warpscope::scene {
namespace {

// Whole numbers beyond 2^53 cannot be told apart in a JSON number (a double).
constexpr double kMaxExactWhole = 9007199254740992.0;

template <typename E, std::size_t N>
QString nameOf(E value, const std::array<const char*, N>& names)
{
    const auto i = std::size_t(value);
    return QString::fromLatin1(i < N ? names[i] : names[0]);
}

QString describe(const QJsonValue& v)
{
    switch (v.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Double:
        return QStringLiteral("the number %1").arg(v.toDouble(), 0, 'g', 17);
    case QJsonValue::String:
        return QStringLiteral("the text \"%1\"").arg(v.toString().left(40));
    case QJsonValue::Array:
        return QStringLiteral("an array");
    case QJsonValue::Object:
        return QStringLiteral("an object");
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("nothing");
}

// Collects the first error and every warning of one read, each naming the source and key.
class Reader
{
public:
    explicit Reader(QString source) : m_source(std::move(source)) {}

    bool failed() const { return !m_error.isEmpty(); }
    void fail(const QString& key, const QString& problem)
    {
        if (!failed())
            m_error = prefix() + (key.isEmpty() ? QString() : key + ": ") + problem;
    }
    void warn(const QString& key, const QString& problem)
    {
        m_warnings << prefix() + key + ": " + problem;
    }
    const QString& error() const { return m_error; }
    const QStringList& warnings() const { return m_warnings; }

private:
    QString prefix() const { return m_source.isEmpty() ? QString() : m_source + ": "; }

    QString m_source;
    QString m_error;
    QStringList m_warnings;
};

// One JSON object of a scene. Each read names the key it knows; on finish(), the keys that
// no read asked for are reported as unknown. Reads do nothing once the reader has failed.
class Section
{
public:
    Section(Reader& reader, QJsonObject object, QString path)
        : m_reader(reader), m_object(std::move(object)), m_path(std::move(path))
    {}

    void number(const char* key, double& out)
    {
        const QJsonValue v = take(key);
        if (v.isUndefined())
            return;
        if (!v.isDouble())
            return fail(key, "expected a number, found " + describe(v));
        const double d = v.toDouble();
        if (!std::isfinite(d))
            return fail(key, "expected a finite number, found " + describe(v));
        out = d;
    }

    template <typename T> void whole(const char* key, T& out)
    {
        const QJsonValue v = take(key);
        if (v.isUndefined())
            return;
        const double lo = std::max(double(std::numeric_limits<T>::min()), -kMaxExactWhole);
        const double hi = std::min(double(std::numeric_limits<T>::max()), kMaxExactWhole);
        const double d = v.toDouble();
        if (!v.isDouble() || !std::isfinite(d) || d != std::floor(d) || d < lo || d > hi)
            return fail(key, QStringLiteral("expected a whole number from %1 to %2, found %3")
                                 .arg(lo, 0, 'g', 17)
                                 .arg(hi, 0, 'g', 17)
                                 .arg(describe(v)));
        out = static_cast<T>(d);
    }

    void flag(const char* key, bool& out)
    {
        const QJsonValue v = take(key);
        if (v.isUndefined())
            return;
        if (!v.isBool())
            return fail(key, "expected true or false, found " + describe(v));
        out = v.toBool();
    }

    void text(const char* key, QString& out)
    {
        const QJsonValue v = take(key);
        if (v.isUndefined())
            return;
        if (!v.isString())
            return fail(key, "expected text, found " + describe(v));
        out = v.toString();
    }

    template <typename E, std::size_t N>
    void choice(const char* key, E& out, const std::array<const char*, N>& names)
    {
        const QJsonValue v = take(key);
        if (v.isUndefined())
            return;
        QStringList allowed;
        for (std::size_t i = 0; i < N; ++i) {
            if (v.isString() && v.toString() == QLatin1String(names[i])) {
                out = E(i);
                return;
            }
            allowed << QStringLiteral("\"%1\"").arg(names[i]);
        }
        fail(key, "expected one of " + allowed.join(", ") + ", found " + describe(v));
    }

    void dims(const char* key, gpu::Dim3& out)
    {
        const QJsonValue v = take(key);
        if (v.isUndefined())
            return;
        const QJsonArray a = v.toArray();
        if (!v.isArray() || a.size() != 3)
            return fail(
                key, "expected an array of three whole numbers [x, y, z], found " +
                         (v.isArray() ? QStringLiteral("%1 values").arg(a.size()) : describe(v)));
        Section items(m_reader, QJsonObject{{"x", a[0]}, {"y", a[1]}, {"z", a[2]}}, path(key));
        gpu::Dim3 d;
        items.whole("x", d.x);
        items.whole("y", d.y);
        items.whole("z", d.z);
        if (!m_reader.failed())
            out = d;
    }

    // A nested object: empty (and, when present but not an object, the read failed) if absent.
    std::optional<QJsonObject> object(const char* key)
    {
        const QJsonValue v = take(key);
        if (v.isUndefined())
            return std::nullopt;
        if (!v.isObject()) {
            fail(key, "expected an object, found " + describe(v));
            return std::nullopt;
        }
        return v.toObject();
    }

    std::optional<QJsonArray> array(const char* key)
    {
        const QJsonValue v = take(key);
        if (v.isUndefined())
            return std::nullopt;
        if (!v.isArray()) {
            fail(key, "expected an array, found " + describe(v));
            return std::nullopt;
        }
        return v.toArray();
    }

    // An array of [t0, t1] pairs of finite numbers. Its length is checked before its items, so
    // that a file with millions of ranges is refused at once.
    void masks(const char* key, std::vector<gpu::TimeRange>& out)
    {
        const QJsonValue v = take(key);
        if (v.isUndefined())
            return;
        if (!v.isArray())
            return fail(key, "expected an array of [t0, t1] pairs, found " + describe(v));
        const QJsonArray a = v.toArray();
        if (std::size_t(a.size()) > gpu::kMaxMasks)
            return fail(key, QStringLiteral("%1 masked ranges, more than the %2 allowed")
                                 .arg(a.size())
                                 .arg(gpu::kMaxMasks));
        std::vector<gpu::TimeRange> masks;
        for (qsizetype i = 0; i < a.size(); ++i) {
            const QJsonArray pair = a[i].toArray();
            if (!a[i].isArray() || pair.size() != 2 || !pair[0].isDouble() || !pair[1].isDouble())
                return fail(key, QStringLiteral("item %1: expected [t0, t1], two numbers, found %2")
                                     .arg(i)
                                     .arg(describe(a[i])));
            masks.push_back({pair[0].toDouble(), pair[1].toDouble()});
        }
        out = std::move(masks);
    }

    // {"epoch": E, "sinusoids": [{"frequency": F, "amplitude": A, "phase": P, and their
    // errors}, ...]}; the length is checked before the items, as for masks.
    void prewhitening(const char* key, std::vector<gpu::FittedSinusoid>& out, double& epoch)
    {
        const auto object = this->object(key);
        if (!object)
            return;
        Section section(m_reader, *object, path(key));
        double e = 0.0;
        section.number("epoch", e);
        const auto list = section.array("sinusoids");
        section.finish();
        if (m_reader.failed())
            return;
        std::vector<gpu::FittedSinusoid> sinusoids;
        if (list) {
            if (std::size_t(list->size()) > kMaxPrewhitened)
                return fail(key, QStringLiteral("%1 prewhitened sinusoids, more than the %2 "
                                                "allowed")
                                     .arg(list->size())
                                     .arg(kMaxPrewhitened));
            for (qsizetype i = 0; i < list->size(); ++i) {
                if (!(*list)[i].isObject())
                    return fail(key, QStringLiteral("sinusoids item %1: expected an object, "
                                                    "found %2")
                                         .arg(i)
                                         .arg(describe((*list)[i])));
                Section item(m_reader, (*list)[i].toObject(),
                             path(key) + QStringLiteral(".sinusoids[%1]").arg(i));
                gpu::FittedSinusoid f;
                item.number("frequency", f.frequency);
                item.number("amplitude", f.amplitude);
                item.number("phase", f.phase);
                item.number("frequencyError", f.frequencyError);
                item.number("amplitudeError", f.amplitudeError);
                item.number("phaseError", f.phaseError);
                item.finish();
                if (m_reader.failed())
                    return;
                sinusoids.push_back(f);
            }
        }
        out = std::move(sinusoids);
        epoch = e;
    }

    // Text of at most maxBytes in UTF-8, refused by its length before it is copied.
    void longText(const char* key, std::string& out, std::size_t maxBytes)
    {
        const QJsonValue v = take(key);
        if (v.isUndefined())
            return;
        if (!v.isString())
            return fail(key, "expected text, found " + describe(v));
        const QString text = v.toString();
        // UTF-8 takes at least one byte a UTF-16 unit: a longer text cannot fit.
        if (std::size_t(text.size()) > maxBytes)
            return fail(key, QStringLiteral("%1 characters, more than the %2 bytes allowed")
                                 .arg(text.size())
                                 .arg(maxBytes));
        const QByteArray utf8 = text.toUtf8();
        if (std::size_t(utf8.size()) > maxBytes)
            return fail(key, QStringLiteral("%1 bytes, more than the %2 allowed")
                                 .arg(utf8.size())
                                 .arg(maxBytes));
        out = utf8.toStdString();
    }

    // [{"name": "k", "value": 1.5}, ...]; the length is checked before the items.
    void kernelValues(const char* key, std::vector<KernelParamValue>& out)
    {
        const auto list = array(key);
        if (!list)
            return;
        if (list->size() > gpu::kMaxKernelParams)
            return fail(key, QStringLiteral("%1 parameter values, more than the %2 a kernel may "
                                            "declare")
                                 .arg(list->size())
                                 .arg(gpu::kMaxKernelParams));
        std::vector<KernelParamValue> values;
        for (qsizetype i = 0; i < list->size(); ++i) {
            if (!(*list)[i].isObject())
                return fail(key, QStringLiteral("item %1: expected {\"name\": ..., \"value\": "
                                                "...}, found %2")
                                     .arg(i)
                                     .arg(describe((*list)[i])));
            Section item(m_reader, (*list)[i].toObject(),
                         path(key) + QStringLiteral("[%1]").arg(i));
            KernelParamValue v;
            item.longText("name", v.name, 64);
            double value = NAN;
            item.number("value", value);
            item.finish();
            if (m_reader.failed())
                return;
            if (v.name.empty() || std::isnan(value))
                return fail(key,
                            QStringLiteral("item %1: needs both \"name\" and \"value\"").arg(i));
            if (std::abs(value) > std::numeric_limits<float>::max())
                return fail(key, QStringLiteral("item %1: %2 is beyond float's range")
                                     .arg(i)
                                     .arg(value, 0, 'g', 17));
            v.value = float(value);
            values.push_back(v);
        }
        out = std::move(values);
    }

    // ["-use_fast_math", ...]; the length is checked before the items.
    void flags(const char* key, std::vector<std::string>& out)
    {
        const auto list = array(key);
        if (!list)
            return;
        if (list->size() > gpu::kMaxKernelFlags)
            return fail(key, QStringLiteral("%1 options, more than the %2 allowed")
                                 .arg(list->size())
                                 .arg(gpu::kMaxKernelFlags));
        std::vector<std::string> flags;
        for (qsizetype i = 0; i < list->size(); ++i) {
            const QJsonValue v = (*list)[i];
            if (!v.isString() || v.toString().size() > 64)
                return fail(key, QStringLiteral("item %1: expected an option of up to 64 "
                                                "characters, found %2")
                                     .arg(i)
                                     .arg(describe(v)));
            flags.push_back(v.toString().toStdString());
        }
        out = std::move(flags);
    }

    QString path(const QString& key) const { return m_path.isEmpty() ? key : m_path + "." + key; }

    void finish()
    {
        if (m_reader.failed())
            return;
        for (auto it = m_object.begin(); it != m_object.end(); ++it)
            if (!m_known.contains(it.key()))
                m_reader.warn(path(it.key()), QStringLiteral("unknown key, ignored"));
    }

private:
    QJsonValue take(const char* key)
    {
        m_known.insert(QLatin1String(key));
        if (m_reader.failed())
            return QJsonValue(QJsonValue::Undefined);
        return m_object.value(QLatin1String(key));
    }
    void fail(const char* key, const QString& problem) { m_reader.fail(path(key), problem); }

    Reader& m_reader;
    QJsonObject m_object;
    QString m_path;
    QSet<QString> m_known;
};

QJsonArray toJson(const gpu::Dim3& d)
{
    return {qint64(d.x), qint64(d.y), qint64(d.z)};
}

QJsonObject toJson(const FieldScene& f)
{
    const gpu::DistanceParams& p = f.params;
    QJsonArray references;
    for (const gpu::GeoPoint& r : p.references)
        references.append(QJsonObject{{"lat", r.lat}, {"lon", r.lon}});
    const LessonScene& l = f.lesson;
    const QJsonObject lesson{
        {"teaching", l.teaching},        {"block", toJson(l.launch.block)},
        {"grid", toJson(l.launch.grid)}, {"gridFitted", l.gridFitted},
        {"gridStride", l.gridStride},    {"overlay", nameOf(l.overlay, kOverlays)}};
    return {{"latMin", p.latMin},
            {"latMax", p.latMax},
            {"lonMin", p.lonMin},
            {"lonMax", p.lonMax},
            {"nx", p.nx},
            {"ny", p.ny},
            {"references", references},
            {"precision", nameOf(p.precision, kPrecisions)},
            {"unit", nameOf(p.unit, kUnits)},
            {"radiusKm", p.radiusKm},
            {"colormap", f.colormap},
            {"lesson", lesson}};
}

QJsonObject toJson(const LabScene& l)
{
    return {{"arrays", l.arrays}, {"length", qint64(l.length)},   {"multiStream", l.multiStream},
            {"pinned", l.pinned}, {"orderCopies", l.orderCopies}, {"seed", qint64(l.seed)}};
}

QJsonObject toJson(const KernelScene& k)
{
    QJsonArray values;
    for (const KernelParamValue& v : k.values)
        values.append(QJsonObject{{"name", QString::fromStdString(v.name)}, {"value", v.value}});
    QJsonArray flags;
    for (const std::string& flag : k.flags)
        flags.append(QString::fromStdString(flag));
    return {{"template", nameOf(k.shape, kKernelTemplates)},
            {"source", QString::fromStdString(k.source)},
            {"params", values},
            {"options", flags}};
}

void readKernel(Section& s, KernelScene& k)
{
    s.choice("template", k.shape, kKernelTemplates);
    s.longText("source", k.source, gpu::kMaxKernelSourceBytes);
    s.kernelValues("params", k.values);
    s.flags("options", k.flags);
}

void readField(Section& s, Reader& reader, FieldScene& f)
{
    gpu::DistanceParams& p = f.params;
    s.number("latMin", p.latMin);
    s.number("latMax", p.latMax);
    s.number("lonMin", p.lonMin);
    s.number("lonMax", p.lonMax);
    s.whole("nx", p.nx);
    s.whole("ny", p.ny);
    if (const auto references = s.array("references")) {
        p.references.clear();
        for (qsizetype i = 0; i < references->size() && !reader.failed(); ++i) {
            const QString path = s.path(QStringLiteral("references[%1]").arg(i));
            const QJsonValue v = references->at(i);
            if (!v.isObject()) {
                reader.fail(path, "expected an object {\"lat\": ..., \"lon\": ...}, found " +
                                      describe(v));
                break;
            }
            Section point(reader, v.toObject(), path);
            gpu::GeoPoint r{NAN, NAN};
            point.number("lat", r.lat);
            point.number("lon", r.lon);
            if (!reader.failed() && (std::isnan(r.lat) || std::isnan(r.lon)))
                reader.fail(path, "needs both \"lat\" and \"lon\"");
            point.finish();
            p.references.push_back(r);
        }
    }
    s.choice("precision", p.precision, kPrecisions);
    s.choice("unit", p.unit, kUnits);
    s.number("radiusKm", p.radiusKm);
    s.text("colormap", f.colormap);
    if (const auto object = s.object("lesson")) {
        Section lesson(reader, *object, s.path("lesson"));
        LessonScene& l = f.lesson;
        lesson.flag("teaching", l.teaching);
        lesson.dims("block", l.launch.block);
        lesson.dims("grid", l.launch.grid);
        lesson.flag("gridFitted", l.gridFitted);
        lesson.flag("gridStride", l.gridStride);
        lesson.choice("overlay", l.overlay, kOverlays);
        lesson.finish();
    }
}

void readPeriodogram(Section& s, PeriodogramScene& p)
{
    s.whole("points", p.points);
    s.number("baseline", p.baseline);
    s.number("noise", p.noise);
    s.number("period", p.period);
    s.number("amplitude", p.amplitude);
    s.whole("seed", p.seed);
    s.choice("gridMode", p.gridMode, kGridModes);
    s.number("samplesPerPeak", p.samplesPerPeak);
    s.number("nyquistFactor", p.nyquistFactor);
    s.number("fmin", p.fmin);
    s.number("fmax", p.fmax);
    s.whole("count", p.count);
    s.choice("unit", p.unit, kFrequencyUnits);
    s.choice("xAxis", p.xAxis, kAxes);
    s.flag("logX", p.logX);
    s.choice("normalization", p.normalization, kNormalizations);
    s.flag("fitMean", p.fitMean);
    s.flag("center", p.center);
    s.flag("weights", p.useErrors);
    s.choice("precision", p.precision, kPrecisions);
    s.choice("method", p.method, kMethods);
    s.whole("nterms", p.nterms);
    s.whole("peaks", p.peaks);
    s.whole("blockThreads", p.blockThreads);
    s.whole("gridBlocks", p.gridBlocks);
    s.flag("gridStride", p.gridStride);
    s.choice("detrend", p.detrend.method, kDetrendMethods);
    s.whole("detrendDegree", p.detrend.degree);
    s.number("detrendWindow", p.detrend.window);
    s.masks("masks", p.masks);
    s.prewhitening("prewhitening", p.prewhitened, p.prewhitenEpoch);
}

void readLab(Section& s, LabScene& l)
{
    s.whole("arrays", l.arrays);
    s.whole("length", l.length);
    s.flag("multiStream", l.multiStream);
    s.flag("pinned", l.pinned);
    s.flag("orderCopies", l.orderCopies);
    s.whole("seed", l.seed);
}

// Reads one section of a scene into part (left at its defaults when the section is absent)
// and validates it.
template <typename Part, typename Read>
void readSection(Section& top, Reader& reader, const char* key, Part& part, Read read)
{
    if (const auto object = top.object(key)) {
        Section section(reader, *object, QLatin1String(key));
        read(section, part);
        section.finish();
    }
    if (reader.failed())
        return;
    if (const gpu::Status status = validate(part); !status)
        reader.fail(QLatin1String(key), QString::fromStdString(status.message()));
}

} // namespace

QJsonObject toJson(const PeriodogramScene& p)
{
    QJsonArray masks;
    for (const gpu::TimeRange& m : p.masks)
        masks.append(QJsonArray{m.t0, m.t1});
    QJsonArray sinusoids;
    for (const gpu::FittedSinusoid& f : p.prewhitened)
        sinusoids.append(QJsonObject{{"frequency", f.frequency},
                                     {"amplitude", f.amplitude},
                                     {"phase", f.phase},
                                     {"frequencyError", f.frequencyError},
                                     {"amplitudeError", f.amplitudeError},
                                     {"phaseError", f.phaseError}});
    return {{"points", p.points},
            {"baseline", p.baseline},
            {"noise", p.noise},
            {"period", p.period},
            {"amplitude", p.amplitude},
            {"seed", p.seed},
            {"gridMode", nameOf(p.gridMode, kGridModes)},
            {"samplesPerPeak", p.samplesPerPeak},
            {"nyquistFactor", p.nyquistFactor},
            {"fmin", p.fmin},
            {"fmax", p.fmax},
            {"count", qint64(p.count)},
            {"unit", nameOf(p.unit, kFrequencyUnits)},
            {"xAxis", nameOf(p.xAxis, kAxes)},
            {"logX", p.logX},
            {"normalization", nameOf(p.normalization, kNormalizations)},
            {"fitMean", p.fitMean},
            {"center", p.center},
            {"weights", p.useErrors},
            {"precision", nameOf(p.precision, kPrecisions)},
            {"method", nameOf(p.method, kMethods)},
            {"nterms", p.nterms},
            {"peaks", p.peaks},
            {"blockThreads", qint64(p.blockThreads)},
            {"gridBlocks", qint64(p.gridBlocks)},
            {"gridStride", p.gridStride},
            {"detrend", nameOf(p.detrend.method, kDetrendMethods)},
            {"detrendDegree", p.detrend.degree},
            {"detrendWindow", p.detrend.window},
            {"masks", masks},
            {"prewhitening", QJsonObject{{"epoch", p.prewhitenEpoch}, {"sinusoids", sinusoids}}}};
}

std::optional<PeriodogramScene> periodogramFromJson(const QJsonObject& object, QString* error)
{
    Reader reader{QString()};
    PeriodogramScene p;
    Section top(reader, QJsonObject{{"periodogram", object}}, QString());
    readSection(top, reader, "periodogram", p, readPeriodogram);
    if (error)
        *error = reader.error();
    if (reader.failed())
        return std::nullopt;
    return p;
}

QStringList differingKeys(const PeriodogramScene& a, const PeriodogramScene& b)
{
    const QJsonObject ja = toJson(a), jb = toJson(b);
    QStringList keys;
    for (auto it = ja.begin(); it != ja.end(); ++it)
        if (jb.value(it.key()) != it.value())
            keys << it.key();
    return keys;
}

QByteArray sceneToJson(const Scene& scene)
{
    const QJsonObject root{{"format", kSceneFormat},
                           {"version", kSceneVersion},
                           {"workspace", nameOf(scene.workspace, kWorkspaces)},
                           {"field", toJson(scene.field)},
                           {"periodogram", toJson(scene.periodogram)},
                           {"lab", toJson(scene.lab)},
                           {"kernel", toJson(scene.kernel)}};
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

SceneRead parseScene(const QByteArray& bytes, const QString& source)
{
    Reader reader(source);
    const auto result = [&reader](std::optional<Scene> scene) {
        if (reader.failed())
            scene.reset();
        return SceneRead{std::move(scene), reader.error(), reader.warnings()};
    };
    if (bytes.size() > kMaxSceneFileBytes) {
        reader.fail({}, QStringLiteral("is larger than %1 MiB, too large for a scene file")
                            .arg(kMaxSceneFileBytes >> 20));
        return result(std::nullopt);
    }
    if (bytes.trimmed().isEmpty()) {
        reader.fail({}, QStringLiteral("is empty: there is no scene in it"));
        return result(std::nullopt);
    }
    if (bytes.contains('\0')) {
        reader.fail({}, QStringLiteral("is not a scene file (it holds binary data)"));
        return result(std::nullopt);
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        reader.fail({}, QStringLiteral("is not valid JSON: %1 at byte %2")
                            .arg(parseError.errorString())
                            .arg(parseError.offset));
        return result(std::nullopt);
    }
    if (!document.isObject()) {
        reader.fail({}, QStringLiteral("is not a scene file: the top level must be a JSON object"));
        return result(std::nullopt);
    }
    const QJsonObject root = document.object();
    if (root.value("format") != QJsonValue(kSceneFormat)) {
        reader.fail("format", QStringLiteral("expected \"%1\", found %2; this is not a scene file")
                                  .arg(kSceneFormat, describe(root.value("format"))));
        return result(std::nullopt);
    }
    Section top(reader, root, QString());
    QString format;
    top.text("format", format);
    int version = 0;
    top.whole("version", version);
    if (!reader.failed() && version != kSceneVersion)
        reader.fail("version", version > kSceneVersion
                                   ? QStringLiteral("version %1 is newer than this Warpscope "
                                                    "reads (%2)")
                                         .arg(version)
                                         .arg(kSceneVersion)
                                   : QStringLiteral("expected %1, found %2")
                                         .arg(kSceneVersion)
                                         .arg(root.contains("version") ? QString::number(version)
                                                                       : "nothing"));
    Scene scene;
    top.choice("workspace", scene.workspace, kWorkspaces);
    readSection(top, reader, "field", scene.field,
                [&reader](Section& s, FieldScene& f) { readField(s, reader, f); });
    readSection(top, reader, "periodogram", scene.periodogram, readPeriodogram);
    readSection(top, reader, "lab", scene.lab, readLab);
    readSection(top, reader, "kernel", scene.kernel, readKernel);
    top.finish();
    return result(std::move(scene));
}

SceneRead loadScene(const QString& path)
{
    const QFileInfo info(path);
    const auto refuse = [&path](const QString& why) {
        return SceneRead{std::nullopt, path + ": " + why, {}};
    };
    if (!info.exists())
        return refuse(QStringLiteral("no such file"));
    if (info.isDir())
        return refuse(QStringLiteral("is a folder, not a scene file"));
    if (!info.isFile())
        return refuse(QStringLiteral("is not a regular file"));
    if (info.size() > kMaxSceneFileBytes)
        return refuse(QStringLiteral("is larger than %1 MiB, too large for a scene file")
                          .arg(kMaxSceneFileBytes >> 20));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return refuse(QStringLiteral("cannot be read: %1").arg(file.errorString()));
    // One byte more than the limit, in case the file grew since it was measured.
    return parseScene(file.read(kMaxSceneFileBytes + 1), path);
}

QString saveScene(const Scene& scene, const QString& path)
{
    if (const gpu::Status status = validate(scene); !status)
        return path + ": " + QString::fromStdString(status.message());
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return path + ": cannot be written: " + file.errorString();
    const QByteArray json = sceneToJson(scene);
    if (file.write(json) != json.size() || !file.commit())
        return path + ": cannot be written: " + file.errorString();
    return {};
}

} // namespace warpscope::scene
