#include "LegendWidget.h"

#include <algorithm>

#include "OpPalette.h"
#include "SceneStyle.h"
#include "core/ir/Graph.h"

#include <QPainter>

namespace fusebox {

namespace {
constexpr int kRow = 20;
constexpr int kMargin = 8;
constexpr int kColumns = 2;
} // namespace

LegendWidget::LegendWidget(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("legend"));
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void LegendWidget::setCounts(std::map<OpFamily, size_t> counts)
{
    m_counts = std::move(counts);
    update();
}

size_t LegendWidget::count(OpFamily family) const
{
    auto it = m_counts.find(family);
    return it == m_counts.end() ? 0 : it->second;
}

QSize LegendWidget::sizeHint() const
{
    const int rows = int((OpPalette::families().size() + kColumns - 1) / kColumns);
    return {320, 2 * kMargin + rows * kRow};
}

QSize LegendWidget::minimumSizeHint() const
{
    return sizeHint();
}

void LegendWidget::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const std::vector<OpFamily> families = OpPalette::families();
    const int rows = int((families.size() + kColumns - 1) / kColumns);
    const int columnWidth = (width() - 2 * kMargin) / kColumns;
    QFont font = this->font();
    QFont bold = font;
    bold.setBold(true);
    // The count column fits the widest count (100k-node graphs have 5 digits).
    size_t widest = 0;
    for (OpFamily family : families)
        widest = std::max(widest, count(family));
    const int countWidth = std::max(30, QFontMetrics(bold).horizontalAdvance(QString::number(widest)) + 4);
    for (size_t i = 0; i < families.size(); ++i) {
        const OpFamily family = families[i];
        const FamilyStyle style = OpPalette::style(family);
        const size_t n = count(family);
        const int column = int(i) / rows;
        const int rowIndex = int(i) % rows;
        const QRect cell(kMargin + column * columnWidth, kMargin + rowIndex * kRow, columnWidth - 6, kRow);
        const QRectF swatch(cell.left(), cell.center().y() - 6, 22, 12);
        p.setOpacity(n ? 1.0 : 0.45);
        p.setPen(QPen(style.accent, 1));
        p.setBrush(style.fill);
        p.drawRoundedRect(swatch, 3, 3);
        p.fillRect(QRectF(swatch.left(), swatch.top() + 0.5, 4, swatch.height() - 1), style.accent);
        // Count in a fixed column after the swatch, then the name (elided).
        const QRect countRect(int(swatch.right()) + 4, cell.top(), countWidth, cell.height());
        if (n) {
            p.setFont(bold);
            p.setPen(SceneStyle::mutedText());
            p.drawText(countRect, Qt::AlignRight | Qt::AlignVCenter, QString::number(n));
        }
        const QRect textRect(countRect.right() + 8, cell.top(), cell.right() - countRect.right() - 8, cell.height());
        p.setFont(font);
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetrics(font).elidedText(OpPalette::label(family), Qt::ElideRight, textRect.width()));
    }
}

} // namespace fusebox
