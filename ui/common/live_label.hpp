#pragma once
// A label for text that changes several times a second: step counters, sizes, rates.
#include <QTextDocument>
#include <QWidget>

namespace kvscope::ui {

// QLabel::setText asks for a new layout of everything up to the window on every change
// (QLayout::activate ends in updateGeometry of its widget, and so on upwards), laying out
// every word-wrapped label on the way: in gui_bench the numbers cost a third of the GUI
// thread. A LiveLabel asks for a new layout only when its text needs room it has not got —
// wider (one line) or taller (wrapped) — and otherwise only repaints itself. The width it has
// asked for never shrinks while it lives, so numbers that get shorter do not shake the layout.
// Like QLabel, one line asks for its whole text as its minimum width, unless it may be elided
// (plain text only). Rich text is Qt's subset of HTML.
class LiveLabel : public QWidget {
  Q_OBJECT
 public:
  explicit LiveLabel(Qt::TextFormat format = Qt::PlainText, QWidget* parent = nullptr);

  void setText(const QString& text);          // repaints; asks for a layout only to grow
  QString text() const { return text_; }
  void setWordWrap(bool wrap);                 // wrap to the width given (height for width)
  void setAlignment(Qt::Alignment alignment);  // default: left, vertically centred
  void setElidable(bool elidable);             // one line of plain text: may end in "…"
  // Reserves the room `sample` needs from the start (the widest usual text), so the first
  // large numbers do not re-lay out the window either.
  void reserveRoomFor(const QString& sample);

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;
  bool hasHeightForWidth() const override { return wrap_; }
  int heightForWidth(int width) const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  QSize natural(const QString& text) const;  // unwrapped size of `text` in our font
  int advance(const QString& text) const;    // width of one line of plain text
  void remeasure();                           // after a font or style change

  QString text_;
  Qt::TextFormat format_;
  bool wrap_ = false;
  bool elidable_ = false;
  Qt::Alignment alignment_ = Qt::AlignLeft | Qt::AlignVCenter;
  mutable QTextDocument document_;  // rich text, laid out at document_.textWidth()
  QSize room_;                      // what we have asked the layout for (one-line labels)
  int reservedWidth_ = 0;
  QString reservedSample_;
};

}  // namespace kvscope::ui
