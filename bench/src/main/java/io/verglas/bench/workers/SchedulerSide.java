package io.verglas.bench.workers;

import java.util.List;

/**
 * One scheduler under test, its handler reporting to a probe: enqueue for immediate execution;
 * stop the consumer, preload a backlog, start it again.
 */
interface SchedulerSide extends AutoCloseable {
  String name();

  /** Enqueues one job due now. */
  void enqueue(String id) throws Exception;

  /** Enqueues jobs due now in one batch (the consumer may be stopped). */
  void enqueueAll(List<String> ids) throws Exception;

  void stopConsumer() throws Exception;

  void startConsumer() throws Exception;

  @Override
  void close() throws Exception;
}
