#include "warpscope/scene/FieldScene.h"

#include "AnyGpu.h"

#include <QStringList>
#include <algorithm>

namespace warpscope::scene {

gpu::Dim3 lessonGrid(const LessonScene& lesson, int nx, int ny)
{
    if (!lesson.gridFitted)
        return lesson.launch.grid;
    const gpu::Dim3& block = lesson.launch.block;
    const long long bx = std::max(block.x, 1LL), by = std::max(block.y, 1LL);
    return {(std::max(nx, 1) + bx - 1) / bx, (std::max(ny, 1) + by - 1) / by, 1};
}

gpu::Status validate(const FieldScene& field)
{
    QStringList problems;
    for (const gpu::ParamError& e : gpu::validate(field.params))
        problems << QString::fromStdString(e.message);
    const bool nameOk = !field.colormap.isEmpty() && field.colormap.size() <= 64 &&
                        std::all_of(field.colormap.begin(), field.colormap.end(), [](QChar c) {
                            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                   (c >= '0' && c <= '9') || c == '_' || c == '-';
                        });
    if (!nameOk)
        problems << QStringLiteral("The colormap must be named with up to 64 letters, digits, _ "
                                   "or -, such as viridis");
    gpu::LaunchConfig launch = field.lesson.launch;
    launch.grid = lessonGrid(field.lesson, field.params.nx, field.params.ny);
    for (const gpu::LaunchError& e : gpu::validateLaunch(launch, anyGpu()))
        problems << QString::fromStdString(e.message);
    const int overlay = int(field.lesson.overlay);
    if (overlay < int(LessonOverlay::Distance) || overlay > int(LessonOverlay::Lanes))
        problems << QStringLiteral("Unknown overlay %1").arg(overlay);
    if (problems.isEmpty())
        return gpu::Status::success();
    return gpu::Status::failure(problems.join("; ").toStdString());
}

} // namespace warpscope::scene
