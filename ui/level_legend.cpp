#include "level_legend.hpp"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

namespace kvscope::ui {

ColorLegend::ColorLegend(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void ColorLegend::setEntries(QVector<Entry> entries) {
  entries_ = std::move(entries);
  updateGeometry();
  update();
}

QVector<QRect> ColorLegend::layoutChips() const {
  const QFontMetrics fm(font());
  const int chip = fm.height() - 2;
  QVector<QRect> rects;
  int x = 0;
  for (const Entry& e : entries_) {
    const int w = chip + 5 + fm.horizontalAdvance(e.text);
    rects.push_back(QRect(x, 0, w, fm.height() + 4));
    x += w + 14;
  }
  return rects;
}

QSize ColorLegend::sizeHint() const {
  const auto rects = layoutChips();
  const int w = rects.isEmpty() ? 0 : rects.back().right() + 1;
  return {w, QFontMetrics(font()).height() + 4};
}

void ColorLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QFontMetrics fm(font());
  const int chip = fm.height() - 2;
  const auto rects = layoutChips();
  for (int i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    const QRect r = rects[i];
    const QRect box(r.x(), r.y() + (r.height() - chip) / 2, chip, chip);
    p.fillRect(box, e.color);
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(box.adjusted(0, 0, -1, -1));
    if (e.dot) {
      p.setRenderHint(QPainter::Antialiasing);
      p.setPen(Qt::NoPen);
      p.setBrush(e.dotColor);
      p.drawEllipse(QRectF(box).center(), 2.2, 2.2);
      p.setRenderHint(QPainter::Antialiasing, false);
    }
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(box.right() + 5, r.y(), r.width(), r.height()), Qt::AlignVCenter | Qt::AlignLeft,
               e.text);
  }
}

bool ColorLegend::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const auto rects = layoutChips();
    for (int i = 0; i < rects.size(); ++i) {
      if (rects[i].contains(help->pos()) && !entries_[i].toolTip.isEmpty()) {
        QToolTip::showText(help->globalPos(), entries_[i].toolTip, this, rects[i]);
        return true;
      }
    }
    QToolTip::hideText();
    return true;
  }
  return QWidget::event(e);
}

}  // namespace kvscope::ui
