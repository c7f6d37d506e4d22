#include "common/live_label.hpp"

#include <QAbstractTextDocumentLayout>
#include <QEvent>
#include <QPainter>

#include <cmath>

#include <algorithm>

namespace kvscope::ui {

namespace {

// Wrapped labels ask for about this many characters a line, as QLabel does, and take what
// the layout gives them.
constexpr int preferredWrapChars = 40;

}  // namespace

int LiveLabel::advance(const QString& text) const {
  return static_cast<int>(std::ceil(QFontMetricsF(font()).horizontalAdvance(text))) + 1;
}

LiveLabel::LiveLabel(Qt::TextFormat format, QWidget* parent)
    : QWidget(parent), format_(format == Qt::RichText ? Qt::RichText : Qt::PlainText) {
  document_.setDocumentMargin(0);
  document_.setDefaultFont(font());
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
  room_ = natural(QString());
}

QSize LiveLabel::natural(const QString& text) const {
  const QFontMetrics fm(font());
  // Whole pixels up from the exact advance: elision measures the exact one.
  if (format_ == Qt::PlainText) return {advance(text), fm.height()};
  document_.setTextWidth(-1);
  const QSizeF size = document_.size();
  return {static_cast<int>(std::ceil(document_.idealWidth())),
          std::max(fm.height(), static_cast<int>(std::ceil(size.height())))};
}

void LiveLabel::setText(const QString& text) {
  if (text == text_) return;
  text_ = text;
  if (format_ == Qt::RichText) document_.setHtml(text_);
  if (wrap_) {
    // Wrapped: only a change of height needs the layout.
    if (heightForWidth(width()) != height()) updateGeometry();
  } else {
    const QSize need = natural(text_);
    if (need.width() > room_.width() || need.height() > room_.height()) {
      room_ = room_.expandedTo(need);
      updateGeometry();
    }
  }
  update();
}

void LiveLabel::setWordWrap(bool wrap) {
  if (wrap == wrap_) return;
  wrap_ = wrap;
  QSizePolicy policy = sizePolicy();
  policy.setHeightForWidth(wrap);
  setSizePolicy(policy);
  updateGeometry();
  update();
}

void LiveLabel::setAlignment(Qt::Alignment alignment) {
  alignment_ = alignment;
  update();
}

void LiveLabel::setElidable(bool elidable) {
  elidable_ = elidable;
  updateGeometry();
}

void LiveLabel::reserveRoomFor(const QString& sample) {
  reservedSample_ = sample;
  reservedWidth_ = advance(sample);
  if (reservedWidth_ > room_.width()) {
    room_.setWidth(reservedWidth_);
    updateGeometry();
  }
}

QSize LiveLabel::sizeHint() const {
  if (!wrap_) return room_;
  const QFontMetrics fm(font());
  const int width = std::min(natural(text_).width(), fm.averageCharWidth() * preferredWrapChars);
  return {width, heightForWidth(width)};
}

QSize LiveLabel::minimumSizeHint() const {
  const QFontMetrics fm(font());
  if (wrap_) return {fm.averageCharWidth() * 8, fm.height()};
  if (!elidable_ || format_ != Qt::PlainText) return room_;
  return {std::min(room_.width(), fm.horizontalAdvance(QStringLiteral("…")) * 3), room_.height()};
}

int LiveLabel::heightForWidth(int width) const {
  const QFontMetrics fm(font());
  if (!wrap_) return room_.height();
  if (text_.isEmpty()) return fm.height();
  if (format_ == Qt::PlainText) {
    return fm.boundingRect(QRect(0, 0, std::max(1, width), 100000), Qt::TextWordWrap, text_).height();
  }
  document_.setTextWidth(std::max(1, width));
  return std::max(fm.height(), static_cast<int>(std::ceil(document_.size().height())));
}

void LiveLabel::paintEvent(QPaintEvent*) {
  if (text_.isEmpty()) return;
  QPainter p(this);
  const QColor color = palette().color(foregroundRole());
  if (format_ == Qt::PlainText) {
    p.setPen(color);
    if (wrap_) {
      p.drawText(rect(), static_cast<int>(alignment_) | Qt::TextWordWrap, text_);
    } else {
      p.drawText(rect(), static_cast<int>(alignment_),
                 elidable_ ? fontMetrics().elidedText(text_, Qt::ElideRight, width()) : text_);
    }
    return;
  }
  document_.setTextWidth(wrap_ ? width() : -1);
  const QSizeF size(wrap_ ? width() : document_.idealWidth(), document_.size().height());
  double x = 0, y = 0;
  if (!wrap_ && (alignment_ & Qt::AlignRight)) x = width() - size.width();
  if (!wrap_ && (alignment_ & Qt::AlignHCenter)) x = (width() - size.width()) / 2;
  if (alignment_ & Qt::AlignVCenter) y = (height() - size.height()) / 2;
  if (alignment_ & Qt::AlignBottom) y = height() - size.height();
  p.setClipRect(rect());
  p.translate(std::max(0.0, x), std::max(0.0, y));
  QAbstractTextDocumentLayout::PaintContext context;
  context.palette = palette();
  context.palette.setColor(QPalette::Text, color);
  document_.documentLayout()->draw(&p, context);
}

void LiveLabel::changeEvent(QEvent* event) {
  if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange) remeasure();
  if (event->type() == QEvent::PaletteChange) update();
  QWidget::changeEvent(event);
}

void LiveLabel::remeasure() {
  document_.setDefaultFont(font());
  if (format_ == Qt::RichText) document_.setHtml(text_);
  room_ = natural(text_);
  if (!reservedSample_.isEmpty()) reserveRoomFor(reservedSample_);
  updateGeometry();
  update();
}

}  // namespace kvscope::ui
