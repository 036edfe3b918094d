#include "warpscope/scene/SceneFile.h"

#include "OptionValues.h"
#include "SceneNames.h"
#include "warpscope/scene/Options.h"

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
#include <type_traits>

namespace warpscope::scene {
namespace {

using options::text;

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

    void number(const QString& key, double& out)
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

    template <typename T> void whole(const QString& key, T& out)
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

    void flag(const QString& key, bool& out)
    {
        const QJsonValue v = take(key);
        if (v.isUndefined())
            return;
        if (!v.isBool())
            return fail(key, "expected true or false, found " + describe(v));
        out = v.toBool();
    }

    void text(const QString& key, QString& out)
    {
        const QJsonValue v = take(key);
        if (v.isUndefined())
            return;
        if (!v.isString())
            return fail(key, "expected text, found " + describe(v));
        out = v.toString();
    }

    template <typename E, std::size_t N>
    void choice(const QString& key, E& out, const std::array<const char*, N>& names)
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

    void dims(const QString& key, gpu::Dim3& out)
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

    // [{"lat": ..., "lon": ...}, ...]: each point needs both.
    void references(const QString& key, std::vector<gpu::GeoPoint>& out)
    {
        const auto list = array(key);
        if (!list)
            return;
        out.clear();
        for (qsizetype i = 0; i < list->size() && !m_reader.failed(); ++i) {
            const QString at = path(key + QStringLiteral("[%1]").arg(i));
            const QJsonValue v = list->at(i);
            if (!v.isObject()) {
                m_reader.fail(at, "expected an object {\"lat\": ..., \"lon\": ...}, found " +
                                      describe(v));
                break;
            }
            Section point(m_reader, v.toObject(), at);
            gpu::GeoPoint r{NAN, NAN};
            point.number("lat", r.lat);
            point.number("lon", r.lon);
            if (!m_reader.failed() && (std::isnan(r.lat) || std::isnan(r.lon)))
                m_reader.fail(at, "needs both \"lat\" and \"lon\"");
            point.finish();
            out.push_back(r);
        }
    }

    // A nested object: empty (and, when present but not an object, the read failed) if absent.
    std::optional<QJsonObject> object(const QString& key)
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

    std::optional<QJsonArray> array(const QString& key)
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
    void masks(const QString& key, std::vector<gpu::TimeRange>& out)
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
    void prewhitening(const QString& key, std::vector<gpu::FittedSinusoid>& out, double& epoch)
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
    void longText(const QString& key, std::string& out, std::size_t maxBytes)
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
    void kernelValues(const QString& key, std::vector<KernelParamValue>& out)
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
            v.value = value;
            values.push_back(v);
        }
        out = std::move(values);
    }

    // ["-use_fast_math", ...]; the length is checked before the items.
    void flags(const QString& key, std::vector<std::string>& out)
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
    QJsonValue take(const QString& key)
    {
        m_known.insert(key);
        if (m_reader.failed())
            return QJsonValue(QJsonValue::Undefined);
        return m_object.value(key);
    }
    void fail(const QString& key, const QString& problem) { m_reader.fail(path(key), problem); }

    Reader& m_reader;
    QJsonObject m_object;
    QString m_path;
    QSet<QString> m_known;
};

// How each type of value a scene key holds is read (the key's Option gives its limits) ...
void readValue(Section& s, const QString& key, const Option&, double& out)
{
    s.number(key, out);
}

template <typename T>
requires std::is_integral_v<T>
void readValue(Section& s, const QString& key, const Option&, T& out)
{
    if constexpr (std::is_same_v<T, bool>)
        s.flag(key, out);
    else
        s.whole(key, out);
}

template <typename E>
requires std::is_enum_v<E>
void readValue(Section& s, const QString& key, const Option&, E& out)
{
    s.choice(key, out, sceneNames(E{}));
}

void readValue(Section& s, const QString& key, const Option&, QString& out)
{
    s.text(key, out);
}

void readValue(Section& s, const QString& key, const Option& option, std::string& out)
{
    s.longText(key, out, std::size_t(option.range.value_or(OptionRange{0, 64}).max));
}

void readValue(Section& s, const QString& key, const Option&, gpu::Dim3& out)
{
    s.dims(key, out);
}

void readValue(Section& s, const QString& key, const Option&, std::vector<gpu::GeoPoint>& out)
{
    s.references(key, out);
}

void readValue(Section& s, const QString& key, const Option&, std::vector<gpu::TimeRange>& out)
{
    s.masks(key, out);
}

void readValue(Section& s, const QString& key, const Option&, std::vector<KernelParamValue>& out)
{
    s.kernelValues(key, out);
}

void readValue(Section& s, const QString& key, const Option&, std::vector<std::string>& out)
{
    s.flags(key, out);
}

void readValue(Section& s, const QString& key, const Option&, PeriodogramScene& out)
{
    s.prewhitening(key, out.prewhitened, out.prewhitenEpoch);
}

// ... and written.
QJsonValue jsonOf(double v)
{
    return v;
}

template <typename T>
requires std::is_integral_v<T> QJsonValue jsonOf(T v)
{
    if constexpr (std::is_same_v<T, bool>)
        return v;
    else
        return qint64(v);
}

template <typename E>
requires std::is_enum_v<E> QJsonValue jsonOf(E v)
{
    return nameOf(v, sceneNames(E{}));
}

QJsonValue jsonOf(const QString& v)
{
    return v;
}

QJsonValue jsonOf(const std::string& v)
{
    return QString::fromStdString(v);
}

QJsonValue jsonOf(const gpu::Dim3& d)
{
    return QJsonArray{qint64(d.x), qint64(d.y), qint64(d.z)};
}

QJsonValue jsonOf(const std::vector<gpu::GeoPoint>& references)
{
    QJsonArray array;
    for (const gpu::GeoPoint& r : references)
        array.append(QJsonObject{{"lat", r.lat}, {"lon", r.lon}});
    return array;
}

QJsonValue jsonOf(const std::vector<gpu::TimeRange>& masks)
{
    QJsonArray array;
    for (const gpu::TimeRange& m : masks)
        array.append(QJsonArray{m.t0, m.t1});
    return array;
}

QJsonValue jsonOf(const std::vector<KernelParamValue>& values)
{
    QJsonArray array;
    for (const KernelParamValue& v : values)
        array.append(QJsonObject{{"name", QString::fromStdString(v.name)}, {"value", v.value}});
    return array;
}

QJsonValue jsonOf(const std::vector<std::string>& flags)
{
    QJsonArray array;
    for (const std::string& flag : flags)
        array.append(QString::fromStdString(flag));
    return array;
}

QJsonValue jsonOf(const PeriodogramScene& p)
{
    QJsonArray sinusoids;
    for (const gpu::FittedSinusoid& f : p.prewhitened)
        sinusoids.append(QJsonObject{{"frequency", f.frequency},
                                     {"amplitude", f.amplitude},
                                     {"phase", f.phase},
                                     {"frequencyError", f.frequencyError},
                                     {"amplitudeError", f.amplitudeError},
                                     {"phaseError", f.phaseError}});
    return QJsonObject{{"epoch", p.prewhitenEpoch}, {"sinusoids", sinusoids}};
}

// A number's value, for its range; none for a value of another kind.
std::optional<double> numberAt(const SceneField& at, Scene& scene)
{
    return std::visit(
        [&scene](auto field) -> std::optional<double> {
            if constexpr (!std::is_same_v<decltype(field), std::monostate>) {
                using Value = std::remove_reference_t<decltype(field(scene))>;
                if constexpr (std::is_arithmetic_v<Value> && !std::is_same_v<Value, bool>)
                    return double(field(scene));
            }
            return std::nullopt;
        },
        at);
}

// Every scene key, declared with an option or alone, in the scene file's order.
const std::vector<const Option*>& sceneKeys()
{
    static const std::vector<const Option*> keys = [] {
        std::vector<const Option*> all;
        for (const auto list : {declaredOptions(), declaredSceneKeys()})
            for (const Option& option : list)
                if (!std::holds_alternative<std::monostate>(option.at))
                    all.push_back(&option);
        return all;
    }();
    return keys;
}

// The part of a key below prefix ("field.lesson." of "field.lesson.grid" leaves "grid"), or
// none when the key is not below it.
std::optional<std::string_view> below(const Option& option, std::string_view prefix)
{
    if (!option.sceneKey.starts_with(prefix))
        return std::nullopt;
    return option.sceneKey.substr(prefix.size());
}

// The validation of each part of a scene, which sees the part's values together.
gpu::Status validatePart(std::string_view part, const Scene& scene)
{
    if (part == "field")
        return validate(scene.field);
    if (part == "periodogram")
        return validate(scene.periodogram);
    if (part == "lab")
        return validate(scene.lab);
    if (part == "kernel")
        return validate(scene.kernel);
    return gpu::Status::success();
}

void readKeys(Section& section, Reader& reader, std::string_view prefix, Scene& scene);

// Reads the object prefix names ("field.", "field.lesson.") from its parent, then checks a
// part of the scene as a whole and each key's declared range. Absent, it keeps the defaults.
void readObject(Section& parent, Reader& reader, std::string_view prefix, Scene& scene)
{
    const std::string_view name = prefix.substr(0, prefix.size() - 1);
    const QString key = text(name.substr(name.rfind('.') + 1));
    if (const auto object = parent.object(key)) {
        Section section(reader, *object, text(name));
        readKeys(section, reader, prefix, scene);
        section.finish();
    }
    if (reader.failed() || name.find('.') != std::string_view::npos)
        return;
    if (const gpu::Status status = validatePart(name, scene); !status)
        return reader.fail(text(name), QString::fromStdString(status.message()));
    for (const Option* option : sceneKeys()) {
        const auto value = below(*option, prefix) ? numberAt(option->at, scene) : std::nullopt;
        if (value && option->range && (*value < option->range->min || *value > option->range->max))
            return reader.fail(text(option->sceneKey),
                               QStringLiteral("must lie in [%1, %2], not %3")
                                   .arg(option->range->min, 0, 'g', 17)
                                   .arg(option->range->max, 0, 'g', 17)
                                   .arg(*value, 0, 'g', 17));
    }
}

// Reads the keys declared below prefix from section, in declaration order; a nested object
// where the first of its keys is declared.
void readKeys(Section& section, Reader& reader, std::string_view prefix, Scene& scene)
{
    QSet<QString> objects;
    for (const Option* option : sceneKeys()) {
        const auto key = below(*option, prefix);
        if (!key)
            continue;
        if (const std::size_t dot = key->find('.'); dot != std::string_view::npos) {
            const QString object = text(key->substr(0, dot));
            if (!objects.contains(object)) {
                objects.insert(object);
                readObject(section, reader, option->sceneKey.substr(0, prefix.size() + dot + 1),
                           scene);
            }
            continue;
        }
        std::visit(
            [&](auto at) {
                if constexpr (!std::is_same_v<decltype(at), std::monostate>)
                    readValue(section, text(*key), *option, at(scene));
            },
            option->at);
    }
}

// The keys declared below prefix, nested objects and all.
QJsonObject writeKeys(std::string_view prefix, Scene& scene)
{
    QJsonObject object;
    for (const Option* option : sceneKeys()) {
        const auto key = below(*option, prefix);
        if (!key)
            continue;
        if (const std::size_t dot = key->find('.'); dot != std::string_view::npos) {
            const QString name = text(key->substr(0, dot));
            if (!object.contains(name))
                object[name] =
                    writeKeys(option->sceneKey.substr(0, prefix.size() + dot + 1), scene);
            continue;
        }
        std::visit(
            [&](auto at) {
                if constexpr (!std::is_same_v<decltype(at), std::monostate>)
                    object[text(*key)] = jsonOf(at(scene));
            },
            option->at);
    }
    return object;
}
} // namespace

QJsonObject toJson(const PeriodogramScene& p)
{
    Scene scene;
    scene.periodogram = p;
    return writeKeys("periodogram.", scene);
}

std::optional<PeriodogramScene> periodogramFromJson(const QJsonObject& object, QString* error)
{
    Reader reader{QString()};
    Scene scene;
    Section top(reader, QJsonObject{{"periodogram", object}}, QString());
    readObject(top, reader, "periodogram.", scene);
    if (error)
        *error = reader.error();
    if (reader.failed())
        return std::nullopt;
    return scene.periodogram;
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
    Scene copy = scene; // the declarations find a value in a scene they may change
    QJsonObject root = writeKeys("", copy);
    root["format"] = kSceneFormat;
    root["version"] = kSceneVersion;
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
    readKeys(top, reader, "", scene);
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
