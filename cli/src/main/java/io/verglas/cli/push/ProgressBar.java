package io.verglas.cli.push;

import java.io.PrintStream;

/** A one-line progress bar on a terminal stream, redrawn at most every 100 ms. */
final class ProgressBar {
  private static final int WIDTH = 30;
  private final PrintStream out;
  private final long startNanos = System.nanoTime();
  private long lastDraw;

  ProgressBar(PrintStream out) {
    this.out = out;
  }

  void update(double fraction, long rows, long acked) {
    long now = System.nanoTime();
    if (now - lastDraw < 100_000_000L) {
      return;
    }
    draw(fraction, rows, acked, now);
  }

  /** Draws the final state, whatever the time since the last draw, and ends the line. */
  void finish(double fraction, long rows, long acked) {
    draw(fraction, rows, acked, System.nanoTime());
    out.println();
  }

  private void draw(double fraction, long rows, long acked, long now) {
    lastDraw = now;
    int filled = (int) Math.round(Math.max(0, Math.min(1, fraction)) * WIDTH);
    double seconds = Math.max(1e-3, (now - startNanos) / 1e9);
    out.printf("\r[%s%s] %3d%%  %,d rows sent, %,d acknowledged  %,.0f rows/s ",
        "#".repeat(filled), ".".repeat(WIDTH - filled), (int) (fraction * 100), rows, acked,
        rows / seconds);
    out.flush();
  }

}
