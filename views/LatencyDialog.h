#pragma once

#include "core/torch/LatencyComparison.h"

#include <QDialog>
#include <QPointer>

#include <atomic>
#include <memory>
#include <optional>

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace fusebox {

class TaskService;

class Document;

/// Horizontal box plots, before above after (then, for a PT2 graph, compiled
/// before and after), on one millisecond axis from zero: whiskers from the fastest to the slowest run, a box over the middle
/// half, a bar at the median, the median written beside it.
class LatencyChart final : public QWidget {
    Q_OBJECT

public:
    explicit LatencyChart(QWidget *parent = nullptr);

    /// What to draw; nullopt draws the empty axis.
    void setComparison(std::optional<LatencyComparison> comparison);
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    std::optional<LatencyComparison> m_comparison;
};

/// Rewrite ▸ Measure Latency: runs the document's original graph and its
/// current one on the same inputs (compareLatency(): a PT2 graph in PyTorch 2
/// through the document's bridge, eagerly and compiled by torch.compile,
/// Inductor on CPU; any other in libtorch) in the background, on copies taken
/// when the measurement starts, with progress and Cancel, and shows medians
/// and spread before and after, eager and compiled, as numbers and as a
/// chart. Numbers come from the measurement only.
class LatencyDialog final : public QDialog {
    Q_OBJECT

public:
    /// Measurements run as tasks of kind "latency" in `tasks` (the window's).
    LatencyDialog(Document *document, TaskService *tasks, QWidget *parent = nullptr);
    /// Cancels a running measurement (its result is dropped).
    ~LatencyDialog() override;

    /// Starts measuring now (the runs and warm-up spin boxes' values); false
    /// when a measurement is already running or no model is open.
    bool start();
    bool isRunning() const;
    /// Stops a running measurement; finished() follows with "cancelled".
    void cancel();

    /// The last measurement (nullopt before the first, or after a failure).
    const std::optional<LatencyComparison> &comparison() const { return m_comparison; }
    /// What the dialog says: the summary line, or why the measurement failed.
    QString resultText() const;
    void setRuns(int runs, int warmup);

signals:
    /// A measurement ended: its one-line summary, or the error ("cancelled" when stopped).
    void finished(bool ok, const QString &line);

private:
    void onFinished(const std::shared_ptr<Expected<LatencyComparison>> &result);
    void updateControls();

    Document *m_document;
    QSpinBox *m_runs;
    QSpinBox *m_warmup;
    QCheckBox *m_compiled;
    QLabel *m_graphs;
    QLabel *m_result;
    QLabel *m_details;
    QProgressBar *m_progress;
    LatencyChart *m_chart;
    QPushButton *m_measure;
    QPushButton *m_cancel;
    std::optional<LatencyComparison> m_comparison;
    QString m_error;
    /// The window's; it may go first when the window closes.
    QPointer<TaskService> m_tasks;
};

} // namespace fusebox
