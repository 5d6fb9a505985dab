package io.verglas.bench;

/**
 * A macro benchmark: runs real components side by side with the peer they compete with, in one
 * run, and reports metrics, peer figures and their ratios.
 */
public interface Benchmark {
  /** The name used on the command line: {@code verglas bench NAME}. */
  String name();

  /** One line on what it measures and against which peer. */
  String description();

  /** Runs the benchmark; {@code quick} uses the documented smaller input. */
  BenchmarkReport run(boolean quick) throws Exception;
}
