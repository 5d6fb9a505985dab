package io.verglas.workers.harness;

/** Sees runs as they happen: a run's process once started, then each event as it is reported. */
public interface RunObserver {
  RunObserver NONE = new RunObserver() { };

  default void started(RunSpec run, ProcessHandle process) { }

  default void event(RunSpec run, RunEvent event) { }
}
