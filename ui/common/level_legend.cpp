#include "common/level_legend.hpp"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace kvscope::ui {

namespace {

int swatchWidth(const ColorLegend::Entry& e, int chip) {
  return e.swatch == ColorLegend::Swatch::line ? chip * 2 : chip;
}

}  // namespace

ColorLegend::ColorLegend(QWidget* parent) : QWidget(parent) {
  // Not Fixed: a box layout caps a Fixed widget at its one-line size hint, height for width or not.
  QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Minimum);
  policy.setHeightForWidth(true);
  setSizePolicy(policy);
}

void ColorLegend::setEntries(QVector<Entry> entries) {
  entries_ = std::move(entries);
  updateGeometry();
  update();
}

QVector<QRect> ColorLegend::layoutChips(int width) const {
  const QFontMetrics fm(font());
  const int chip = fm.height() - 2;
  const int rowHeight = fm.height() + 4;
  QVector<QRect> rects;
  int x = 0, y = 0;
  for (const Entry& e : entries_) {
    const int w = swatchWidth(e, chip) + 5 + fm.horizontalAdvance(e.text);
    if (x > 0 && x + w > width) {  // the next line
      x = 0;
      y += rowHeight;
    }
    rects.push_back(QRect(x, y, w, rowHeight));
    x += w + 14;
  }
  return rects;
}

QSize ColorLegend::sizeHint() const {
  const auto rects = layoutChips(QWIDGETSIZE_MAX);
  const int w = rects.isEmpty() ? 0 : rects.back().right() + 1;
  return {w, QFontMetrics(font()).height() + 4};
}

QSize ColorLegend::minimumSizeHint() const {
  int widest = 0;
  for (const QRect& r : layoutChips(0)) widest = std::max(widest, r.width());
  return {std::min(widest, 160), QFontMetrics(font()).height() + 4};
}

int ColorLegend::heightForWidth(int width) const {
  const auto rects = layoutChips(width);
  return rects.isEmpty() ? QFontMetrics(font()).height() + 4 : rects.back().bottom() + 1;
}

void ColorLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QFontMetrics fm(font());
  const int chip = fm.height() - 2;
  const auto rects = layoutChips(width());
  for (int i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    const QRect r = rects[i];
    const QRect box(r.x(), r.y() + (r.height() - chip) / 2, swatchWidth(e, chip), chip);
    if (e.swatch == Swatch::line) {
      p.setPen(QPen(e.color, e.lineWidth, e.lineStyle, Qt::FlatCap));
      p.drawLine(box.left(), box.center().y(), box.right(), box.center().y());
    } else if (e.swatch == Swatch::circle) {
      p.setRenderHint(QPainter::Antialiasing);
      p.setPen(QPen(e.dotColor, 1));
      p.setBrush(e.color);
      p.drawEllipse(QRectF(box).adjusted(1, 1, -1, -1));
      p.setRenderHint(QPainter::Antialiasing, false);
    } else if (e.swatch == Swatch::ring || e.swatch == Swatch::unwritten) {
      p.fillRect(box, e.color);
      p.setBrush(Qt::NoBrush);
      if (e.swatch == Swatch::unwritten) {
        p.fillRect(QRect(box.x(), box.y(), box.width(), box.height() / 2), e.dotColor);
        p.setPen(palette().color(QPalette::Mid));
        p.drawRect(box.adjusted(0, 0, -1, -1));
      } else {
        p.setPen(QPen(e.dotColor, 2));
        p.drawRect(QRectF(box).adjusted(1, 1, -1, -1));
      }
    } else if (e.swatch != Swatch::chip) {
      const QRectF t = QRectF(box).adjusted(1.5, 2, -1.5, -1);
      QPolygonF tri;
      if (e.swatch == Swatch::triangleUp) {
        tri << QPointF(t.center().x(), t.top()) << t.bottomRight() << t.bottomLeft();
      } else {
        tri << t.topLeft() << t.topRight() << QPointF(t.center().x(), t.bottom());
      }
      p.setRenderHint(QPainter::Antialiasing);
      p.setPen(QPen(e.dotColor, 1));
      p.setBrush(e.color);
      p.drawPolygon(tri);
      p.setRenderHint(QPainter::Antialiasing, false);
    } else {
      p.fillRect(box, e.color);
      p.setPen(palette().color(QPalette::Mid));
      p.drawRect(box.adjusted(0, 0, -1, -1));
    }
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
    const auto rects = layoutChips(width());
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
