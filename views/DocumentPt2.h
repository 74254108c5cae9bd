#pragma once

#include <QObject>
#include "DocumentParts.h"

#include "MatchEntry.h"
#include "core/ir/Expected.h"
#include "core/pt2/BridgeVerifier.h"
#include "core/pt2/Pt2Export.h"

#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace fusebox {

class TaskControl;

class Document;

/// What the document does in PyTorch 2, through one long-lived bridge of its
/// own (docs/pt2-bridge.md): started on first need (its Python runs until
/// the document goes), shared by the verifier, Measure Latency and the
/// exports, so that one Python serves the whole review.
///
/// A PT2 graph (isPt2Graph: a Dynamo, AOT or torch.export graph) is verified
/// in PyTorch 2, never in libtorch 1.13: applying matches then runs in the
/// background (applyInBackground), on a copy of the graph, each rewrite
/// checked against the original's outputs as it is made, with progress and
/// Cancel; a rewrite that changes the outputs is undone and reported with the
/// output, element and both values. The copy replaces the graph, as one undo
/// step, when the job ends. Apply All verifies through pt2Verifier() on its
/// own worker thread.
class DocumentPt2 final : public QObject {
    Q_OBJECT

public:
    DocumentPt2(Document &document, const DocumentParts &parts);
    /// Cancels a running job and waits for it; the bridge's Python exits.
    ~DocumentPt2();
    DocumentPt2(const DocumentPt2 &) = delete;
    DocumentPt2 &operator=(const DocumentPt2 &) = delete;

    /// True when the document's rewrites are verified in PyTorch 2: a PT2
    /// graph, and a Python for the bridge is set up (Settings ▸ PyTorch 2
    /// Python…, FUSEBOX_PYTHON or the setup-pt2.sh root).
    bool verifiesInPyTorch2() const;
    /// Why a PT2 graph is not verified in PyTorch 2 (no Python), or "".
    QString whyNotPyTorch2() const;

    /// The bridge (no process until its first request); null when no Python
    /// is set up. Made again when the Settings' command changed.
    std::shared_ptr<pt2::Pt2Bridge> bridge();

    /// For worker threads: the verifier against the document's original
    /// graph, made on first call (the bridge's Python starts, the original
    /// runs once) and kept for the graph. One line when it cannot be made.
    Expected<std::shared_ptr<pt2::BridgeVerifier>> pt2Verifier(const pt2::RequestControl &control);
    /// A new graph needs a new verifier (the bridge stays).
    void resetVerifier();

    // ---- applies verified in PyTorch 2
    /// Applies `chosen` (pending candidates) in the background as one undo
    /// step; emits applyStarted(), then for each failure
    /// verificationFailed(), matchesApplied() when any applied, and
    /// applyFinished(). False when a job runs already.
    bool applyInBackground(std::vector<MatchEntry> chosen);
    bool isApplying() const { return m_applying; }

    // ---- exports for stock PyTorch 2
    /// Exports the current graph in the background (exportForPyTorch2 against
    /// the original); `done` runs on the GUI thread with the result. False
    /// when a job runs already or no Python is set up (`error` says which).
    bool exportInBackground(const QString &path, pt2::Pt2ExportFormat format,
                            std::function<void(Expected<pt2::Pt2ExportResult>)> done, QString *error);
    bool isExporting() const { return m_exporting; }

    /// "Verifying batch_linear at %linear in PyTorch 2.6 (1 of 2)…", "" when idle.
    QString progressText() const;
    /// Stops the running job: its Python is killed (the next request starts
    /// another), nothing is applied or written.
    void cancel();
    /// Blocks until the running job's result has been handled.
    void waitForFinished();

signals:
    /// Document::applyMatches() started verifying in PyTorch 2 in the
    /// background: what ("Apply batch_linear at %linear").
    void applyStarted(const QString &what);
    /// That background apply ended: how many were applied, and a line saying
    /// so ("...: verified in PyTorch 2", "...: cancelled; nothing was applied").
    void applyFinished(int applied, const QString &summary);

private:
    void setProgress(const std::string &text);
    /// Where setProgress() also reports while a job runs (its task), or null.
    void reportTo(TaskControl *task);
    /// While it lives, setProgress() also reports to `task` (a job's scope).
    class Reporting {
    public:
        Reporting(DocumentPt2 &pt2, TaskControl &task);
        ~Reporting();
        Reporting(const Reporting &) = delete;
        Reporting &operator=(const Reporting &) = delete;

    private:
        DocumentPt2 &m_pt2;
    };

    Document &m_document;
    const DocumentParts &m_parts;
    std::string m_bridgeCommand; // the command m_bridge was made for
    std::shared_ptr<pt2::Pt2Bridge> m_bridge;
    std::mutex m_verifierMutex; // pt2Verifier() runs on worker threads
    std::shared_ptr<pt2::BridgeVerifier> m_verifier;
    bool m_applying = false;
    bool m_exporting = false;
    mutable std::mutex m_progressMutex;
    std::string m_progress;
    TaskControl *m_task = nullptr; ///< the running job's task (guarded by m_progressMutex)
};

} // namespace fusebox
