#pragma once

#include <QObject>
#include <QSize>
#include <QString>

namespace fusebox {

class Document;
class GraphScene;
class GraphView;
struct Session;

/// What a review reads and writes, without dialogs (the window's menus ask
/// for paths and call these): the pass file, the session, the rewritten
/// model, a picture of the view, the review report. Errors come back as one
/// line naming the file.
class ReviewFiles final : public QObject {
    Q_OBJECT

public:
    ReviewFiles(Document *document, GraphScene *scene, GraphView *view, QObject *parent = nullptr);

    /// The enabled rules with their options, custom patterns and rejections (PassConfig.h).
    bool exportPassFile(const QString &path, QString *error = nullptr);
    bool importPassFile(const QString &path, QString *error = nullptr);
    /// Saves the review as a session file (SessionFile.h); `demo` when the
    /// model is the embedded demo.
    bool saveSession(const QString &path, bool demo, QString *error = nullptr);
    /// Restores a session's decisions on the freshly loaded model: the
    /// verification toggle, the pass configuration, then the applied steps.
    bool restoreSession(const Session &session, const QString &sourceName, QString *error = nullptr);
    /// Writes the current (rewritten) graph: .pt TorchScript, .json graph
    /// JSON with weights, .py FX text; .pt2 a torch.export archive, made in
    /// the background as exportForPyTorch2() does.
    bool exportModel(const QString &path, QString *error = nullptr);
    /// Exports the current graph for stock PyTorch 2 in the background,
    /// through the document's bridge: NAME.pt2 a torch.export archive, NAME.py
    /// a torch.nn.Module source with its constants in NAME.weights.pt. PyTorch
    /// 2 loads what was written and runs it against the original; then
    /// pt2ExportFinished(). False (and why) when it cannot start.
    bool exportForPyTorch2(const QString &path, QString *error = nullptr);
    /// What Export Picture draws.
    enum class PictureExtent { WholeGraph, VisiblePart };
    /// The picture written: its size (pixels, or the SVG's user units) and scene-to-picture scale.
    struct PictureInfo {
        QSize size;
        qreal scale = 1.0;
    };
    /// A PNG of the whole graph is drawn at 100 % (labels as the app draws
    /// them) unless that exceeds these; then it is scaled down to fit, and the
    /// Log says its labels are not readable (an SVG has no such limit).
    static constexpr qreal kMaxPictureSide = 32000;
    static constexpr qreal kMaxPicturePixels = 200e6;
    /// Writes a picture of the graph: .svg (vector) or .png. The whole graph
    /// at 100 % (every item of the scene, collapsed groups as shown), or the
    /// visible part at the view's zoom. The Log gives size and scale.
    bool exportPicture(const QString &path, PictureExtent extent, QString *error = nullptr, PictureInfo *info = nullptr);
    /// The whole graph (File ▸ Export Picture).
    bool exportPicture(const QString &path, QString *error = nullptr);
    /// The visible part (File ▸ Export Picture of the View).
    bool exportVisiblePicture(const QString &path, QString *error = nullptr);
    /// Writes a JSON (".json") or Markdown (otherwise) review report of every decision.
    bool exportReport(const QString &path, QString *error = nullptr);

signals:
    /// A line for the window's log.
    void logLine(const QString &line);
    /// exportForPyTorch2() ended: ok when written and its outputs equal the
    /// original's; the line says what was written and what the check found, or why not.
    void pt2ExportFinished(bool ok, const QString &line);

private:
    Document *m_document;
    GraphScene *m_scene;
    GraphView *m_view;
};

} // namespace fusebox
