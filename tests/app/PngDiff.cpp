// Small image checker for the app tests:
//   warpscope_png_diff info A.png      prints "WIDTH HEIGHT DISTINCT_COLOURS"
//   warpscope_png_diff diff A.png B.png  prints the number of differing pixels
#include <QGuiApplication>
#include <QImage>
#include <QSet>
#include <cstdio>

int main(int argc, char** argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s info A.png | diff A.png B.png\n", argv[0]);
        return 2;
    }
    const QString mode = argv[1];
    const QImage a(argv[2]);
    if (a.isNull()) {
        std::fprintf(stderr, "cannot read %s\n", argv[2]);
        return 1;
    }
    if (mode == "info") {
        QSet<QRgb> colours;
        for (int y = 0; y < a.height(); ++y)
            for (int x = 0; x < a.width(); ++x)
                colours.insert(a.pixel(x, y));
        std::printf("%d %d %lld\n", a.width(), a.height(), static_cast<long long>(colours.size()));
        return 0;
    }
    const QImage b(argc > 3 ? argv[3] : "");
    if (mode != "diff" || b.isNull() || b.size() != a.size()) {
        std::fprintf(stderr, "diff needs two readable images of the same size\n");
        return 1;
    }
    long long differing = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x)
            differing += a.pixel(x, y) != b.pixel(x, y);
    std::printf("%lld\n", differing);
    return 0;
}
