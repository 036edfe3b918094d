#pragma once

#include "warpscope/scene/Scene.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <optional>

namespace warpscope::scene {

// Scene files: JSON, {"format": "warpscope-scene", "version": 1, "workspace": ..., "field":
// {...}, "periodogram": {...}, "lab": {...}, "kernel": {...}} (docs/architecture.md lists the
// keys). Reading is
// strict: a value of the wrong type, out of its type's range or failing validate() refuses
// the whole file, with a message that names the file and the key. A missing section or key
// keeps its default; an unknown key is reported as a warning and ignored.
inline constexpr const char* kSceneFormat = "warpscope-scene";
inline constexpr int kSceneVersion = 1;
// Larger files are refused unread: a scene is a few kilobytes.
inline constexpr qint64 kMaxSceneFileBytes = 16 * 1024 * 1024;

struct SceneRead
{
    std::optional<Scene> scene; // empty when the file was refused
    QString error;              // why, naming the file and the key
    QStringList warnings;       // keys ignored, each naming the file and the key
};

// Parses a scene from bytes; source names them in messages (a file name).
SceneRead parseScene(const QByteArray& bytes, const QString& source);
// Reads a file: folders, unreadable, oversized and binary files are refused with a message.
SceneRead loadScene(const QString& path);

QByteArray sceneToJson(const Scene& scene);
// Writes atomically (the old file stays whole until the new one is complete). Returns an
// error message naming the file, or an empty string.
QString saveScene(const Scene& scene, const QString& path);

// One section on its own, for settings and undo: its JSON object, and back. Reading follows
// the file's rules; the error names section.key.
QJsonObject toJson(const PeriodogramScene& periodogram);
std::optional<PeriodogramScene> periodogramFromJson(const QJsonObject& object,
                                                    QString* error = nullptr);
// The keys whose values differ between two periodogram scenes, for naming an undo step.
QStringList differingKeys(const PeriodogramScene& a, const PeriodogramScene& b);

} // namespace warpscope::scene
