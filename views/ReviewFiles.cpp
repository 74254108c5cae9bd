#include "ReviewFiles.h"

#include "patterns/FuseboxOpDecomposition.h"

#include "Document.h"
#include "GraphScene.h"
#include "GraphView.h"
#include "ReviewReport.h"
#include "SessionFile.h"

#include "core/torch/ModelSaver.h"
#include "patterns/FuseboxOpDecomposition.h"

#include <QFile>
#include <QFileInfo>
#include <QPainter>
#include <QSvgGenerator>

namespace fusebox {

namespace {
QString qs(const std::string &s) { return QString::fromStdString(s); }
} // namespace

ReviewFiles::ReviewFiles(Document *document, GraphScene *scene, GraphView *view, QObject *parent)
    : QObject(parent), m_document(document), m_scene(scene), m_view(view)
{
}

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
    emit logLine(tr("opened the pass file %1: %2 rejected matches").arg(path).arg(m_document->passConfig().rejected.size()));
    for (const std::string &note : m_document->configNotes())
        emit logLine(tr("  note: %1").arg(qs(note)));
    return true;
}

bool ReviewFiles::saveSession(const QString &path, bool demo, QString *error)
{
    Session session;
    session.demo = demo;
    if (!demo)
        session.modelPath = QFileInfo(m_document->filePath()).absoluteFilePath();
    session.inputShapes = m_document->loadOptions().inputShapes;
    session.verifyEachApply = m_document->verifyApplies();
    session.pass = m_document->passConfig();
    session.steps = m_document->sessionSteps();
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
    const bool replayed = m_document->replaySteps(session.steps, &why);
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
    // A .pt is for stock PyTorch: Fusebox's own ops go out as the ATen ops
    // they are defined by (fusebox-pass run --keep-fusebox-ops keeps them).
    std::vector<std::string> decomposed;
    const bool torchScript = outputFormatOf(path.toStdString()) == OutputFormat::TorchScript;
    const Graph plain = torchScript ? decomposeFuseboxOps(m_document->graph(), &decomposed) : Graph();
    if (Status s = saveModel(torchScript ? plain : m_document->graph(), path.toStdString(), true); !s) {
        if (error)
            *error = qs(s.error().message);
        return false;
    }
    emit logLine(tr("exported the rewritten model (%1 nodes) to %2").arg(m_document->graph().size()).arg(path));
    if (!decomposed.empty()) {
        QStringList ops;
        for (const std::string &op : decomposed)
            ops << qs(op);
        emit logLine(tr("wrote %1 as the ATen ops each is defined by, so that stock PyTorch loads %2")
                         .arg(ops.join(QStringLiteral(", ")), path));
    }
    return true;
}

bool ReviewFiles::exportPicture(const QString &path, QString *error)
{
    const QRect area = m_view->viewport()->rect();
    const QRectF shown = m_view->mapToScene(area).boundingRect();
    if (path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive)) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(area.size());
        svg.setViewBox(QRect(QPoint(0, 0), area.size()));
        svg.setTitle(m_document->displayName());
        svg.setDescription(tr("Fusebox graph view"));
        QPainter painter;
        if (!painter.begin(&svg)) {
            if (error)
                *error = tr("%1: cannot write").arg(path);
            return false;
        }
        painter.fillRect(QRect(QPoint(0, 0), area.size()), m_view->backgroundBrush().color().isValid()
                                                                 ? m_view->backgroundBrush()
                                                                 : QBrush(Qt::white));
        m_scene->render(&painter, QRectF(QPointF(0, 0), area.size()), shown);
        painter.end();
    } else if (!m_view->viewport()->grab().save(path)) {
        if (error)
            *error = tr("%1: cannot write the picture (use .png or .svg)").arg(path);
        return false;
    }
    emit logLine(tr("exported the view to %1").arg(path));
    return true;
}

bool ReviewFiles::exportReport(const QString &path, QString *error)
{
    const QString text = path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive) ? reviewReportJson(*m_document)
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
