package io.verglas.workers.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Drains a stream on a thread of its own (so a chatty process never blocks on a full pipe) and
 * keeps its last lines, each cut to a bounded length.
 */
final class OutputTail {
  private static final int MAX_LINE_CHARS = 1_000;
  private final Deque<String> lines = new ArrayDeque<>();
  private final int keep;
  private final Thread thread;

  private OutputTail(InputStream in, int keep, String name) {
    this.keep = keep;
    this.thread = new Thread(() -> drain(in), name);
    thread.setDaemon(true);
  }

  static OutputTail start(InputStream in, int keep, String name) {
    OutputTail tail = new OutputTail(in, keep, name);
    tail.thread.start();
    return tail;
  }

  private void drain(InputStream in) {
    try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        synchronized (lines) {
          lines.addLast(line.length() > MAX_LINE_CHARS ? line.substring(0, MAX_LINE_CHARS) : line);
          if (lines.size() > keep) {
            lines.removeFirst();
          }
        }
      }
    } catch (IOException e) {
      // the process is gone; what was read is kept
    }
  }

  /** The last lines, after the stream ended (waits up to a second for the drain to finish). */
  String text() throws InterruptedException {
    thread.join(1_000);
    synchronized (lines) {
      return String.join("\n", lines);
    }
  }
}
