#include "InputShapes.h"

#include <QObject>
#include <QStringList>

namespace fusebox {

QString inputShapesText(const InputShapes &shapes)
{
    QStringList parts;
    for (const auto &shape : shapes) {
        QStringList dims;
        for (int64_t d : shape)
            dims << QString::number(d);
        parts << dims.join(QLatin1Char(','));
    }
    return parts.join(QLatin1Char(';'));
}

std::optional<InputShapes> parseInputShapes(const QString &text, QString *error)
{
    InputShapes shapes;
    if (text.trimmed().isEmpty())
        return shapes;
    const QStringList parts = text.split(QLatin1Char(';'));
    for (qsizetype i = 0; i < parts.size(); ++i) {
        const QString &one = parts[i];
        if (one.trimmed().isEmpty()) {
            if (i + 1 == parts.size())
                break; // a trailing ';'
            if (error)
                *error = QObject::tr("input %1 has no sizes (every tensor input needs its shape, e.g. 32,13)").arg(i + 1);
            return std::nullopt;
        }
        std::vector<int64_t> dims;
        for (const QString &dim : one.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            bool ok = false;
            const qlonglong d = dim.trimmed().toLongLong(&ok);
            if (!ok || d < 0) {
                if (error)
                    *error = QObject::tr("'%1' in '%2' is not a size (expected e.g. 32,13;32,384: sizes separated "
                                         "by ',', inputs by ';')")
                                 .arg(dim.trimmed(), one.trimmed());
                return std::nullopt;
            }
            dims.push_back(d);
        }
        shapes.push_back(std::move(dims));
    }
    return shapes;
}

QString currentInputShapesText(const Graph &graph)
{
    QStringList parts;
    for (NodeId id : graph.inputs()) {
        const Node *n = graph.node(id);
        if (!n || !(n->type.empty() || n->type == "Tensor"))
            continue;
        QStringList dims;
        if (n->meta.hasStaticShape())
            for (const Dim &d : *n->meta.shape)
                dims << QString::number(std::get<int64_t>(d));
        parts << dims.join(QLatin1Char(','));
    }
    return parts.join(QLatin1Char(';'));
}

} // namespace fusebox
