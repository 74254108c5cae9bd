#include "PatternColors.h"

#include "patterns/Catalog.h"

#include <QHash>
#include <QMutex>
#include <QMutexLocker>

namespace fusebox {
namespace {

constexpr int kHues = 16;
constexpr int kShades = 3;

/// Index i of kHues * kShades distinct colours: 16 hues 22.5° apart (the
/// order interleaved so that neighbours in the catalog differ by more than a
/// step), each in a dark, a middle and a light shade, all saturated enough to
/// read as a colour rather than as the grey of applied and rejected rows.
QColor colourAt(int i)
{
    const int slot = i % (kHues * kShades);
    const int hueStep = (slot % kHues) * 7 % kHues; // 7 is coprime with 16: a permutation
    const int shade = slot / kHues;
    const int hue = (hueStep * 360 / kHues + 8) % 360;
    static const int saturation[kShades] = {230, 200, 170};
    static const int value[kShades] = {190, 150, 225};
    return QColor::fromHsv(hue, saturation[shade], value[shade]);
}

/// Built-in rules by catalog order, then other patterns in the order first asked for.
int indexOf(const std::string &pattern)
{
    static QMutex mutex;
    static QHash<QString, int> indices = [] {
        QHash<QString, int> built;
        const PatternSet catalog = builtinCatalog(); // all() points into it
        for (const Pattern *p : catalog.all())
            built.insert(QString::fromStdString(p->name()), int(built.size()));
        return built;
    }();
    QMutexLocker lock(&mutex);
    const QString name = QString::fromStdString(pattern);
    auto it = indices.find(name);
    if (it == indices.end())
        it = indices.insert(name, int(indices.size()));
    return *it;
}

} // namespace

QColor PatternColors::colorFor(const std::string &pattern)
{
    return colourAt(indexOf(pattern));
}

int PatternColors::distinctColours()
{
    return kHues * kShades;
}

} // namespace fusebox
