#include "LatencyDialog.h"

#include "TaskService.h"

#include "Document.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>

namespace fusebox {
namespace {

QString ms(double v)
{
    return QStringLiteral("%1 ms").arg(v, 0, 'f', v < 10 ? 3 : v < 100 ? 2 : 1);
}

/// A round step for an axis from 0 to `max` with about five ticks.
double tickStep(double max)
{
    const double raw = max / 5;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double factor : {1.0, 2.0, 5.0})
        if (raw <= factor * magnitude)
            return factor * magnitude;
    return 10 * magnitude;
}

QString spread(const LatencyResult &r)
{
    return QObject::tr("median %1 · middle half %2 – %3 · range %4 – %5 · %6 runs")
        .arg(ms(r.medianMs), ms(r.p25Ms), ms(r.p75Ms), ms(r.minMs), ms(r.maxMs))
        .arg(r.iterations);
}

} // namespace

LatencyChart::LatencyChart(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("latencyChart"));
    setMinimumHeight(150);
}

void LatencyChart::setComparison(std::optional<LatencyComparison> comparison)
{
    m_comparison = std::move(comparison);
    update();
}

QSize LatencyChart::sizeHint() const
{
    return {560, m_comparison && m_comparison->compiled ? 260 : 170};
}

void LatencyChart::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().base());
    const QFontMetrics fm(font());
    const int axisY = height() - fm.height() - 8;
    // Eager before and after; then, for a PT2 graph, the same compiled by torch.compile.
    struct Row {
        const LatencyResult *r;
        QString label;
        QColor colour;
    };
    std::vector<Row> rows;
    if (m_comparison) {
        rows.push_back({&m_comparison->before, tr("before"), QColor(0x9e, 0x9e, 0x9e)});
        rows.push_back({&m_comparison->after, tr("after"), QColor(0x3a, 0x86, 0xd4)});
        if (const auto &c = m_comparison->compiled) {
            rows.push_back({&c->before, tr("compiled before"), QColor(0xc8, 0xc8, 0xc8)});
            rows.push_back({&c->after, tr("compiled after"), QColor(0x2e, 0xa0, 0x6a)});
        }
    }
    double maxMs = rows.empty() ? 1.0 : 0.0;
    for (const Row &row : rows)
        maxMs = std::max(maxMs, row.r->maxMs);
    int labelWidth = fm.horizontalAdvance(tr("before")) + 16;
    for (const Row &row : rows)
        labelWidth = std::max(labelWidth, fm.horizontalAdvance(row.label) + 16);
    const int left = labelWidth, right = width() - fm.horizontalAdvance(tr("median 000.000 ms")) - 12;
    const double step = tickStep(maxMs > 0 ? maxMs : 1.0);
    const double axisMax = std::ceil(maxMs / step) * step;
    auto x = [&](double v) { return left + (right - left) * (v / axisMax); };

    p.setPen(palette().color(QPalette::Mid));
    p.drawLine(left, axisY, right, axisY);
    for (double t = 0; t <= axisMax + step / 2; t += step) {
        const int tx = static_cast<int>(x(t));
        p.drawLine(tx, axisY, tx, axisY + 4);
        // The unit once, on the last tick.
        const QString text = QString::number(t, 'g', 4) + (t + step > axisMax + step / 2 ? tr(" ms") : QString());
        p.drawText(QRect(tx - 50, axisY + 4, 100, fm.height()), Qt::AlignHCenter, text);
    }
    if (!m_comparison)
        return;

    const int rowHeight = (axisY - 8) / int(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
        const LatencyResult &r = *rows[i].r;
        const int mid = 8 + rowHeight * int(i) + rowHeight / 2;
        const int boxHalf = std::max(6, rowHeight / 4);
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRect(0, mid - fm.height() / 2, labelWidth - 6, fm.height()), Qt::AlignRight, rows[i].label);
        // Whisker: fastest to slowest run.
        p.drawLine(QPointF(x(r.minMs), mid), QPointF(x(r.maxMs), mid));
        p.drawLine(QPointF(x(r.minMs), mid - boxHalf / 2), QPointF(x(r.minMs), mid + boxHalf / 2));
        p.drawLine(QPointF(x(r.maxMs), mid - boxHalf / 2), QPointF(x(r.maxMs), mid + boxHalf / 2));
        // Box: the middle half; bar: the median.
        const QRectF box(QPointF(x(r.p25Ms), mid - boxHalf),
                         QPointF(std::max(x(r.p75Ms), x(r.p25Ms) + 2), mid + boxHalf));
        p.fillRect(box, rows[i].colour);
        p.drawRect(box);
        QPen medianPen(palette().color(QPalette::WindowText), 3);
        p.setPen(medianPen);
        p.drawLine(QPointF(x(r.medianMs), mid - boxHalf), QPointF(x(r.medianMs), mid + boxHalf));
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRectF(x(r.maxMs) + 6, mid - fm.height() / 2.0, width() - x(r.maxMs), fm.height()), Qt::AlignLeft,
                   tr("median %1").arg(ms(r.medianMs)));
    }
}

LatencyDialog::LatencyDialog(Document *document, TaskService *tasks, QWidget *parent)
    : QDialog(parent)
    , m_document(document)
    , m_tasks(tasks)
{
    setObjectName(QStringLiteral("latencyDialog"));
    setWindowTitle(tr("Measure Latency"));
    m_runs = new QSpinBox(this);
    m_runs->setObjectName(QStringLiteral("latencyRuns"));
    m_runs->setRange(1, 100000);
    m_runs->setValue(30);
    m_runs->setToolTip(tr("Timed runs of each graph; the two alternate so that a noisy machine's drift falls on both"));
    m_warmup = new QSpinBox(this);
    m_warmup->setObjectName(QStringLiteral("latencyWarmup"));
    m_warmup->setRange(0, 10000);
    m_warmup->setValue(5);
    m_warmup->setToolTip(tr("Untimed runs of each graph first (the executor optimizes after its first runs)"));
    m_compiled = new QCheckBox(tr("Also compiled by torch.compile (Inductor, CPU), as users run it"), this);
    m_compiled->setObjectName(QStringLiteral("latencyCompiled"));
    m_compiled->setChecked(true);
    m_compiled->setToolTip(tr("PT2 graphs: both graphs are also compiled in PyTorch 2 with Inductor's default "
                              "options (its own Optimus passes off) and timed in the same rounds"));
    auto *form = new QFormLayout;
    form->addRow(tr("Timed runs of each graph:"), m_runs);
    form->addRow(tr("Warm-up runs:"), m_warmup);
    form->addRow(QString(), m_compiled);

    m_graphs = new QLabel(this);
    m_graphs->setObjectName(QStringLiteral("latencyGraphs"));
    m_graphs->setWordWrap(true);
    m_result = new QLabel(tr("Not measured yet."), this);
    m_result->setObjectName(QStringLiteral("latencyResult"));
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_result->font();
    bold.setBold(true);
    m_result->setFont(bold);
    m_details = new QLabel(this);
    m_details->setObjectName(QStringLiteral("latencyDetails"));
    m_details->setWordWrap(true);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("latencyProgress"));
    m_chart = new LatencyChart(this);

    auto *buttons = new QDialogButtonBox(this);
    m_measure = buttons->addButton(tr("&Measure"), QDialogButtonBox::ActionRole);
    m_measure->setObjectName(QStringLiteral("latencyMeasure"));
    m_cancel = buttons->addButton(tr("&Cancel Measurement"), QDialogButtonBox::ActionRole);
    m_cancel->setObjectName(QStringLiteral("latencyCancel"));
    buttons->addButton(QDialogButtonBox::Close);
    connect(m_measure, &QPushButton::clicked, this, &LatencyDialog::start);
    connect(m_cancel, &QPushButton::clicked, this, &LatencyDialog::cancel);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::hide);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_graphs);
    layout->addWidget(m_progress);
    layout->addWidget(m_result);
    layout->addWidget(m_chart, 1);
    layout->addWidget(m_details);
    layout->addWidget(buttons);
    updateControls();
}

LatencyDialog::~LatencyDialog()
{
    // The measurement holds copies of the graphs and guarded pointers to the
    // labels it reports to: it may end after the dialog, its result dropped.
    if (m_tasks)
        m_tasks->cancel(QStringLiteral("latency"));
}

void LatencyDialog::setRuns(int runs, int warmup)
{
    m_runs->setValue(runs);
    m_warmup->setValue(warmup);
}

bool LatencyDialog::isRunning() const
{
    return m_tasks && m_tasks->isRunning(QStringLiteral("latency"));
}

bool LatencyDialog::start()
{
    if (isRunning() || !m_document->model().hasGraph() || !m_tasks)
        return false;
    // Copies: the user may apply or undo while it runs; what is timed is what was there at the start.
    auto original = std::make_shared<Graph>(m_document->history().original().clone());
    auto current = std::make_shared<Graph>(m_document->model().graph().clone());
    const int rewrites = static_cast<int>(m_document->history().appliedGroups().size());
    m_graphs->setText(tr("Original: %1 nodes · current: %2 nodes after %3")
                          .arg(original->size())
                          .arg(current->size())
                          .arg(rewrites == 1 ? tr("1 rewrite") : tr("%1 rewrites").arg(rewrites)));
    LatencyOptions options;
    options.iterations = m_runs->value();
    options.warmup = m_warmup->value();
    options.compiled = m_compiled->isChecked();
    // The document's own Python (its bridge), shared with its verifier.
    std::shared_ptr<pt2::Pt2Bridge> bridge = m_document->pt2Bridge();
    options.bridge = bridge.get();
    QPointer<QLabel> status = m_result;
    options.status = [status](const std::string &text) {
        QMetaObject::invokeMethod(
            status,
            [status, line = QString::fromStdString(text)] {
                if (status)
                    status->setText(tr("Measuring: %1…").arg(line));
            },
            Qt::QueuedConnection);
    };
    QPointer<QProgressBar> bar = m_progress;
    options.progress = [bar](int done, int total) {
        QMetaObject::invokeMethod(
            bar,
            [bar, done, total] {
                if (bar) {
                    bar->setMaximum(total);
                    bar->setValue(done);
                }
            },
            Qt::QueuedConnection);
    };
    m_progress->setRange(0, 0); // busy until the first timed pair (warm-up, a Python starting)
    m_result->setText(
        tr("Measuring: %1 warm-up and %2 timed runs of each graph…").arg(options.warmup).arg(options.iterations));
    m_details->clear();
    m_comparison.reset();
    m_error.clear();
    m_chart->setComparison(std::nullopt);
    auto result = std::make_shared<std::shared_ptr<Expected<LatencyComparison>>>();
    m_tasks->run(
        tr("Measuring latency"), QStringLiteral("latency"), this,
        [original, current, options, bridge, result](TaskControl &task) mutable {
            options.cancel = task.cancelFlag();
            auto statusTo = options.status;
            options.status = [statusTo, &task](const std::string &text) {
                task.setStatus(QString::fromStdString(text));
                statusTo(text);
            };
            auto reportTo = options.progress;
            options.progress = [reportTo, &task](int done, int total) {
                task.setProgress(done, total);
                reportTo(done, total);
            };
            *result = std::make_shared<Expected<LatencyComparison>>(compareLatency(*original, *current, options));
        },
        [this, result](bool) { onFinished(*result); });
    updateControls();
    return true;
}

void LatencyDialog::cancel()
{
    if (isRunning()) {
        m_tasks->cancel(QStringLiteral("latency"));
        m_result->setText(tr("Cancelling…"));
    }
}

QString LatencyDialog::resultText() const
{
    return m_result->text();
}

void LatencyDialog::onFinished(const std::shared_ptr<Expected<LatencyComparison>> &result)
{
    m_progress->setRange(0, 1);
    QString line;
    bool ok = false;
    if (result && *result) {
        m_comparison = **result;
        line = QString::fromStdString(m_comparison->summary());
        const QString compiledLine = QString::fromStdString(m_comparison->compiledSummary());
        m_result->setText(compiledLine.isEmpty() ? line : line + QLatin1Char('\n') + compiledLine);
        if (!compiledLine.isEmpty())
            line += QStringLiteral("; ") + compiledLine;
        const int warmup = m_comparison->warmup;
        QString details = tr("Before: %1\nAfter: %2").arg(spread(m_comparison->before), spread(m_comparison->after));
        if (const auto &c = m_comparison->compiled) {
            details += tr("\nCompiled before: %1\nCompiled after: %2\nCompile: %3 s before, %4 s after")
                           .arg(spread(c->before), spread(c->after))
                           .arg(c->beforeStats.compileSeconds, 0, 'f', 1)
                           .arg(c->afterStats.compileSeconds, 0, 'f', 1);
            for (const std::string &note : c->notes)
                details += QLatin1Char('\n') + QString::fromStdString(note);
        }
        details += tr("\nWarm-up: %1 of each graph first; the timed rounds change their order from round to round.")
                       .arg(warmup == 1 ? tr("1 run") : tr("%1 runs").arg(warmup));
        m_details->setText(details);
        m_progress->setValue(1);
        ok = true;
    } else {
        m_error = result ? QString::fromStdString(result->error().message) : tr("no result");
        line = m_error;
        m_result->setText(m_error == QStringLiteral("cancelled") ? tr("Cancelled: nothing measured.")
                                                                 : tr("Cannot measure: %1").arg(m_error));
        m_progress->setValue(0);
    }
    m_chart->setComparison(m_comparison);
    // Four rows and their details when compiled: grow to show them whole.
    if (height() < sizeHint().height())
        resize(width(), sizeHint().height());
    updateControls();
    emit finished(ok, line);
}

void LatencyDialog::updateControls()
{
    m_measure->setEnabled(!isRunning());
    m_cancel->setEnabled(isRunning());
    m_runs->setEnabled(!isRunning());
    m_compiled->setEnabled(!isRunning());
    m_warmup->setEnabled(!isRunning());
}

} // namespace fusebox
