#pragma once

#include <QMetaObject>
#include <QObject>
#include <utility>

namespace warpscope::ui {

// Runs notice (a view's signal to the window) once the view's paintGL or initializeGL has
// returned, on the view's thread, and not at all if the view is gone by then. A receiver may
// make another GL context current or release the view's (collecting the timeline does): in
// the middle of a frame that leaves the rest of the frame, its draw, going nowhere, and a
// frame that commits a picture and does not draw it shows a blank view until the next one.
template <typename Notice> void afterFrame(QObject* view, Notice&& notice)
{
    QMetaObject::invokeMethod(view, std::forward<Notice>(notice), Qt::QueuedConnection);
}

} // namespace warpscope::ui
