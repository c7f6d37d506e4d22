#pragma once
// A row of colour chips (or line and marker samples) with captions ("fp16", "EWMA", …),
// painted directly: no child widgets. The plots use it instead of QCustomPlot's own legend,
// which measures its text again on every replot.
#include <QColor>
#include <QString>
#include <QVector>
#include <QWidget>

namespace kvscope::ui {

class ColorLegend : public QWidget {
  Q_OBJECT
 public:
  enum class Swatch { chip, line, triangleUp, triangleDown };
  struct Entry {
    QColor color;
    QString text;
    QString toolTip;
    bool dot = false;  // draw a dot inside the chip (shared blocks)
    QColor dotColor;   // also the outline of a triangle
    Swatch swatch = Swatch::chip;
  };
  explicit ColorLegend(QWidget* parent = nullptr);
  void setEntries(QVector<Entry> entries);
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override { return {60, sizeHint().height()}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  QVector<QRect> layoutChips() const;
  QVector<Entry> entries_;
};

}  // namespace kvscope::ui
