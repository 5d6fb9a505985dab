package io.verglas.bench.materialize;

import io.verglas.bench.ProcessMemory;

/**
 * What one writer's process reports: our run's figures or a peer's, the process's memory, or
 * why it failed.
 */
record WriterOutcome(OursRun.Ours ours, MaterializeBenchmark.Peer peer,
    ProcessMemory.Usage memory, String error) {
  static WriterOutcome of(OursRun.Ours ours) {
    return new WriterOutcome(ours, null, null, null);
  }

  static WriterOutcome of(MaterializeBenchmark.Peer peer) {
    return new WriterOutcome(null, peer, null, null);
  }

  static WriterOutcome failed(String error) {
    return new WriterOutcome(null, null, null, error);
  }

  WriterOutcome withMemory(ProcessMemory.Usage usage) {
    return new WriterOutcome(ours, peer, usage, error);
  }

  boolean failed() {
    return error != null;
  }
}
