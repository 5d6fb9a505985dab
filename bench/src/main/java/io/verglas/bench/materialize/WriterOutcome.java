package io.verglas.bench.materialize;

import io.verglas.bench.ProcessMemory;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What one writer's process reports: our run's figures or a peer's, the process's memory, or
 * why it failed. Of several measured runs, the one of median duration is reported in full and
 * the others by their durations ({@code runSeconds}, in the order they ran).
 */
record WriterOutcome(OursRun.Ours ours, MaterializeBenchmark.Peer peer,
    ProcessMemory.Usage memory, String error, List<Double> runSeconds) {
  static WriterOutcome of(OursRun.Ours ours) {
    return new WriterOutcome(ours, null, null, null, List.of(ours.window().seconds()));
  }

  static WriterOutcome of(MaterializeBenchmark.Peer peer) {
    return new WriterOutcome(null, peer, null, null, List.of(peer.window().seconds()));
  }

  static WriterOutcome failed(String error) {
    return new WriterOutcome(null, null, null, error, List.of());
  }

  /**
   * The run of median duration among {@code runs} (of an even number, the slower of the middle
   * two), with every run's duration; the first failure if one failed.
   *
   * @throws IllegalArgumentException if there are no runs
   */
  static WriterOutcome median(List<WriterOutcome> runs) {
    if (runs.isEmpty()) {
      throw new IllegalArgumentException("Cannot take the median of no runs");
    }
    List<Double> seconds = new ArrayList<>();
    for (WriterOutcome run : runs) {
      if (run.failed()) {
        return run;
      }
      seconds.add(run.seconds());
    }
    List<WriterOutcome> sorted = new ArrayList<>(runs);
    sorted.sort(Comparator.comparingDouble(WriterOutcome::seconds));
    WriterOutcome median = sorted.get(sorted.size() / 2);
    return new WriterOutcome(median.ours, median.peer, median.memory, null, List.copyOf(seconds));
  }

  WriterOutcome withMemory(ProcessMemory.Usage usage) {
    return new WriterOutcome(ours, peer, usage, error, runSeconds);
  }

  boolean failed() {
    return error != null;
  }

  /** The reported run's window. */
  MeasuredWindow.Figures window() {
    return ours != null ? ours.window() : peer.window();
  }

  private double seconds() {
    return window().seconds();
  }
}
