#pragma once
// A row of colour chips (or line and marker samples) with captions ("fp16", "EWMA", …),
// painted directly: no child widgets. The plots use it instead of QCustomPlot's own legend,
// which measures its text again on every replot. Where the row is too narrow it wraps onto
// more lines rather than cutting entries off.
#include <QColor>
#include <QString>
#include <QVector>
#include <QWidget>

namespace kvscope::ui {

class ColorLegend : public QWidget {
  Q_OBJECT
 public:
  // ring: a chip of `color` ringed in dotColor (a tour's highlight); unwritten: a chip of
  // `color` whose top half is dotColor (a block's room not yet written).
  enum class Swatch { chip, line, triangleUp, triangleDown, circle, ring, unwritten };
  struct Entry {
    QColor color;
    QString text;
    QString toolTip;
    bool dot = false;  // draw a dot inside the chip (shared blocks)
    QColor dotColor;   // also the outline of a triangle
    Swatch swatch = Swatch::chip;
    Qt::PenStyle lineStyle = Qt::SolidLine;  // a line's, as the plot draws it
    qreal lineWidth = 2;
  };
  explicit ColorLegend(QWidget* parent = nullptr);
  void setEntries(QVector<Entry> entries);
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  QVector<QRect> layoutChips(int width) const;
  QVector<Entry> entries_;
};

}  // namespace kvscope::ui
