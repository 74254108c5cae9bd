#include "ReviewFiles.h"

#include "QtStrings.h"
#include "core/rewrite/FuseboxOpDecomposition.h"

#include "Document.h"
#include "GraphScene.h"
#include "GraphView.h"
#include "ReviewReport.h"
#include "SessionFile.h"

#include "core/torch/ModelSaver.h"
#include "core/rewrite/FuseboxOpDecomposition.h"

#include <QFile>
#include <QFileInfo>
#include <QGraphicsItem>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>

namespace fusebox {

ReviewFiles::ReviewFiles(Document *document, GraphScene *scene, GraphView *view, QObject *parent)
    : QObject(parent)
    , m_document(document)
    , m_scene(scene)
    , m_view(view)
{}

bool ReviewFiles::exportPassFile(const QString &path, QString *error)
{
    if (Status s = m_document->savePassFile(path); !s) {
        if (error)
            *error = qs(s.error().message);
        return false;
    }
    emit logLine(tr("exported the pass file %1").arg(path));
    return true;
}

bool ReviewFiles::importPassFile(const QString &path, QString *error)
{
    if (Status s = m_document->loadPassFile(path); !s) {
        if (error)
            *error = qs(s.error().message);
        return false;
    }
    emit logLine(tr("opened the pass file %1: %2 rejected matches")
                     .arg(path)
                     .arg(m_document->persistence().passConfig().rejected.size()));
    for (const std::string &note : m_document->patternSet().configNotes())
        emit logLine(tr("  note: %1").arg(qs(note)));
    return true;
}

bool ReviewFiles::saveSession(const QString &path, bool demo, QString *error)
{
    Session session;
    session.demo = demo;
    if (!demo)
        session.modelPath = QFileInfo(m_document->model().filePath()).absoluteFilePath();
    session.inputShapes = m_document->model().loadOptions().inputShapes;
    session.verifyEachApply = m_document->jobs().verifyApplies();
    session.pass = m_document->persistence().passConfig();
    session.steps = m_document->history().sessionSteps();
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(writeSession(session).toUtf8()) < 0) {
        if (error)
            *error = tr("%1: %2").arg(path, file.errorString());
        return false;
    }
    m_document->markSaved();
    emit logLine(tr("saved the session %1 (%2 steps, %3 rejections)")
                     .arg(path)
                     .arg(session.steps.size())
                     .arg(session.pass.rejected.size()));
    return true;
}

bool ReviewFiles::restoreSession(const Session &session, const QString &sourceName, QString *error)
{
    m_document->setVerifyApplies(session.verifyEachApply);
    if (Status s = m_document->applyPassConfig(session.pass, sourceName.toStdString()); !s) {
        if (error)
            *error = qs(s.error().message);
        return false;
    }
    QString why;
    const bool replayed = m_document->replaySteps(session.steps, &why, &session.pass, sourceName.toStdString());
    m_document->findMatches();
    m_document->markSaved();
    if (!replayed) {
        if (error)
            *error = tr("%1: %2").arg(sourceName, why);
        return false;
    }
    emit logLine(tr("restored the session %1: %2 steps replayed").arg(sourceName).arg(session.steps.size()));
    return true;
}

bool ReviewFiles::exportModel(const QString &path, QString *error)
{
    if (outputFormatOf(path.toStdString()) == OutputFormat::Pt2Archive)
        return exportForPyTorch2(path, error);
    // A .pt is for stock PyTorch: Fusebox's own ops go out as the ATen ops
    // they are defined by (fusebox-pass run --keep-fusebox-ops keeps them).
    std::vector<std::string> decomposed;
    const bool torchScript = outputFormatOf(path.toStdString()) == OutputFormat::TorchScript;
    const Graph plain = torchScript ? decomposeFuseboxOps(m_document->model().graph(), &decomposed) : Graph();
    if (Status s = saveModel(torchScript ? plain : m_document->model().graph(), path.toStdString(), true); !s) {
        if (error)
            *error = qs(s.error().message);
        return false;
    }
    emit logLine(tr("exported the rewritten model (%1 nodes) to %2").arg(m_document->model().graph().size()).arg(path));
    if (!decomposed.empty()) {
        QStringList ops;
        for (const std::string &op : decomposed)
            ops << qs(op);
        emit logLine(tr("wrote %1 as the ATen ops each is defined by, so that stock PyTorch loads %2")
                         .arg(ops.join(QStringLiteral(", ")), path));
    }
    return true;
}

bool ReviewFiles::exportForPyTorch2(const QString &path, QString *error)
{
    const auto format = pt2::pt2ExportFormatOf(path.toStdString());
    auto done = [this, path](Expected<pt2::Pt2ExportResult> result) {
        if (!result) {
            const QString line = tr("not exported: %1").arg(qs(result.error().message));
            emit logLine(line);
            emit pt2ExportFinished(false, line);
            return;
        }
        QStringList files;
        for (const std::string &f : result->files)
            files << qs(f);
        for (const std::string &note : result->notes)
            emit logLine(tr("export note: %1").arg(qs(note)));
        const QString line = tr("exported for stock PyTorch 2: %1; loaded back in PyTorch 2 and run against the "
                                "original: %2")
                                 .arg(files.join(QStringLiteral(", ")), qs(result->check.message));
        emit logLine(line);
        emit pt2ExportFinished(result->check.passed, line);
    };
    if (!m_document->exportForPyTorch2(path, format, done, error))
        return false;
    emit logLine(tr("exporting the rewritten model (%1 nodes) to %2 in PyTorch 2…")
                     .arg(m_document->model().graph().size())
                     .arg(path));
    return true;
}

bool ReviewFiles::exportPicture(const QString &path, QString *error)
{
    return exportPicture(path, PictureExtent::WholeGraph, error);
}

bool ReviewFiles::exportVisiblePicture(const QString &path, QString *error)
{
    return exportPicture(path, PictureExtent::VisiblePart, error);
}

bool ReviewFiles::exportPicture(const QString &path, PictureExtent extent, QString *error, PictureInfo *info)
{
    const bool svg = path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive);
    if (!svg && !path.endsWith(QStringLiteral(".png"), Qt::CaseInsensitive)) {
        if (error)
            *error = tr("%1: cannot write the picture (use .png or .svg)").arg(path);
        return false;
    }
    // The part of the scene to draw, and at what scale: the visible part as the
    // view shows it; the whole graph at 100 %, where labels have the size the
    // app draws them at (a PNG too large for that is scaled down, and says so).
    QRectF source;
    qreal scale = 1.0;
    if (extent == PictureExtent::VisiblePart) {
        source = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
        scale = m_view->zoom();
    } else {
        source = m_scene->itemsBoundingRect().adjusted(-24, -24, 24, 24);
        if (!svg) {
            const qreal longest = std::max(source.width(), source.height());
            const qreal pixels = source.width() * source.height();
            scale = std::min({1.0, kMaxPictureSide / longest, std::sqrt(kMaxPicturePixels / std::max(pixels, 1.0))});
        }
    }
    const QSize size(std::max(1, qRound(source.width() * scale)), std::max(1, qRound(source.height() * scale)));
    const QBrush background = m_view->backgroundBrush().style() != Qt::NoBrush ? m_view->backgroundBrush()
                                                                               : QBrush(Qt::white);
    // Items cache themselves as pixmaps for the view: drawn from the cache, an
    // SVG would hold bitmaps instead of text and a scaled PNG blurred labels.
    std::vector<std::pair<QGraphicsItem *, QGraphicsItem::CacheMode>> cached;
    for (QGraphicsItem *item : m_scene->items())
        if (item->cacheMode() != QGraphicsItem::NoCache) {
            cached.emplace_back(item, item->cacheMode());
            item->setCacheMode(QGraphicsItem::NoCache);
        }
    struct RestoreCaches {
        std::vector<std::pair<QGraphicsItem *, QGraphicsItem::CacheMode>> &items;
        ~RestoreCaches()
        {
            for (auto [item, mode] : items)
                item->setCacheMode(mode);
        }
    } restore{cached};
    bool drawn = false;
    if (svg) {
        QSvgGenerator generator;
        generator.setFileName(path);
        generator.setSize(size);
        generator.setViewBox(QRect(QPoint(0, 0), size));
        generator.setTitle(m_document->model().displayName());
        generator.setDescription(extent == PictureExtent::WholeGraph ? tr("Fusebox graph, whole")
                                                                     : tr("Fusebox graph view"));
        QPainter painter;
        if (painter.begin(&generator)) {
            painter.fillRect(QRect(QPoint(0, 0), size), background);
            m_scene->render(&painter, QRectF(QPointF(0, 0), size), source);
            drawn = painter.end();
        }
    } else {
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        if (!image.isNull()) {
            image.fill(background.color());
            QPainter painter(&image);
            painter.setRenderHint(QPainter::Antialiasing);
            painter.setRenderHint(QPainter::TextAntialiasing);
            m_scene->render(&painter, QRectF(QPointF(0, 0), size), source);
            painter.end();
            drawn = image.save(path);
        }
    }
    if (!drawn) {
        if (error)
            *error = tr("%1: cannot write the picture").arg(path);
        return false;
    }
    if (info)
        *info = {size, scale};
    const QString what = extent == PictureExtent::WholeGraph ? tr("the whole graph") : tr("the visible part");
    if (scale < GraphView::kReadableZoom && extent == PictureExtent::WholeGraph)
        emit logLine(tr("exported %1 to %2 (%3 x %4 px at %5 %: too large for readable labels in a PNG; an SVG "
                        "keeps them)")
                         .arg(what, path)
                         .arg(size.width())
                         .arg(size.height())
                         .arg(scale * 100, 0, 'f', 1));
    else
        emit logLine(tr("exported %1 to %2 (%3 x %4%5 at %6 %)")
                         .arg(what, path)
                         .arg(size.width())
                         .arg(size.height())
                         .arg(svg ? QString() : tr(" px"))
                         .arg(scale * 100, 0, 'f', 0));
    return true;
}

bool ReviewFiles::exportReport(const QString &path, QString *error)
{
    const QString text = path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive)
                             ? reviewReportJson(*m_document)
                             : reviewReportMarkdown(*m_document);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(text.toUtf8()) < 0) {
        if (error)
            *error = tr("%1: %2").arg(path, file.errorString());
        return false;
    }
    emit logLine(tr("wrote the review report %1").arg(path));
    return true;
}

} // namespace fusebox
