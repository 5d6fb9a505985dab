package io.verglas.workers.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Reads a run process's event lines on a thread of its own and hands each event on, bounding
 * what the worker's logger may add (beyond {@code maxLogEvents} they are counted, not kept) and
 * remembering the run's terminal event and its commits. Lines that are not events (nothing of
 * the worker writes there, but a JVM may) are skipped.
 */
final class EventReader {
  private final Consumer<RunEvent> sink;
  private final int maxLogEvents;
  private final int maxMessageChars;
  private final Thread thread;
  private int logEvents;
  private int commits;
  private RunEvent terminal;
  private RuntimeException failure;

  private EventReader(InputStream in, Consumer<RunEvent> sink, HarnessSettings settings,
      String name) {
    this.sink = sink;
    this.maxLogEvents = settings.maxLogEvents();
    this.maxMessageChars = settings.maxMessageChars();
    this.thread = new Thread(() -> read(in), name);
    thread.setDaemon(true);
  }

  static EventReader start(InputStream in, Consumer<RunEvent> sink, HarnessSettings settings,
      String name) {
    EventReader reader = new EventReader(in, sink, settings, name);
    reader.thread.start();
    return reader;
  }

  private void read(InputStream in) {
    try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        RunEvent event = RunEventCodec.fromLine(line);
        if (event != null) {
          handle(event);
        }
      }
    } catch (IOException e) {
      // the process is gone: what it reported is all there is
    } catch (RuntimeException e) {
      synchronized (this) {
        failure = e;
      }
    }
  }

  private void handle(RunEvent event) {
    synchronized (this) {
      if (event.kind() == RunEvent.Kind.LOG && ++logEvents > maxLogEvents) {
        return;
      }
      if (event.kind() == RunEvent.Kind.COMMIT) {
        commits++;
      } else if (event.kind().ends()) {
        terminal = event;
      }
    }
    sink.accept(event.truncated(maxMessageChars));
  }

  /** Waits until the process's output ended (it exited or was killed). */
  void await() throws InterruptedException {
    thread.join();
    synchronized (this) {
      if (failure != null) {
        throw failure;
      }
    }
  }

  synchronized RunEvent terminal() {
    return terminal;
  }

  synchronized int commits() {
    return commits;
  }

  synchronized int droppedLogEvents() {
    return Math.max(0, logEvents - maxLogEvents);
  }
}
