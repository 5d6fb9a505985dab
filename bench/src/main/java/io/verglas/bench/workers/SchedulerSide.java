package io.verglas.bench.workers;

/** One scheduler under test: enqueue a job for immediate execution; its handler reports to a probe. */
interface SchedulerSide extends AutoCloseable {
  String name();

  void enqueue(String id) throws Exception;

  @Override
  void close() throws Exception;
}
