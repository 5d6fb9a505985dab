package io.verglas.workers.check;

import java.io.PrintStream;
import java.util.List;

/**
 * The outcome of a worker check: whether it passed, and what each step found, one line each,
 * the last line the verdict ({@code PASS: ...} or {@code FAIL: ...}).
 */
public record CheckVerdict(boolean passed, List<String> lines) {
  public CheckVerdict {
    lines = List.copyOf(lines);
  }

  public void print(PrintStream out) {
    lines.forEach(out::println);
  }
}
