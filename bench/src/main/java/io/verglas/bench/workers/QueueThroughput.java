package io.verglas.bench.workers;

import io.verglas.bench.stack.BenchStorage;
import io.verglas.queue.QueueMessage;
import io.verglas.queue.QueueSettings;
import io.verglas.queue.Queues;
import io.verglas.queue.group.GroupConsumer;
import io.verglas.queue.group.LeasedMessages;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code queue_msgs_per_s_publish} and {@code _consume}: one queue on a cache node over a local
 * directory (the local plane's store). Publish: {@value #PUBLISHERS} threads each publish
 * batches of {@value #BATCH} messages of {@value #PAYLOAD_BYTES} payload bytes and one header
 * through one {@link Queues} (group commit), waiting for each batch's durable acknowledgement
 * before the next; timed from the first call to the last acknowledgement. Consume:
 * {@value #CONSUMERS} consumers of one group lease, read and acknowledge until every message was
 * delivered; timed from the first lease to the last acknowledgement.
 */
final class QueueThroughput {
  static final int PUBLISHERS = 8;
  static final int CONSUMERS = 4;
  static final int BATCH = 100;
  static final int PAYLOAD_BYTES = 1024;

  record Figures(double publishPerSecond, double consumePerSecond, long segments) {
    /** The rate a queue both takes and delivers: the slower of the two phases. */
    double sustainedPerSecond() {
      return Math.min(publishPerSecond, consumePerSecond);
    }
  }

  private QueueThroughput() {}

  static Figures measure(int messages) throws Exception {
    try (BenchStorage storage = new BenchStorage(256L << 20);
        S3Client s3 = storage.endpoint().newClient();
        Queues queues = new Queues(s3, BenchStorage.BUCKET, QueueSettings.defaults())) {
      double publish = publish(queues, messages);
      long segments = queues.log("bench").lastSequence() + 1;
      double consume = consume(queues, messages);
      return new Figures(publish, consume, segments);
    }
  }

  private static double publish(Queues queues, int messages) throws Exception {
    List<QueueMessage> batch = new ArrayList<>(BATCH);
    for (int i = 0; i < BATCH; i++) {
      byte[] payload = new byte[PAYLOAD_BYTES];
      payload[0] = (byte) i;
      batch.add(new QueueMessage("k" + i, payload, Map.of("type", "bench")));
    }
    int batchesPerThread = Math.max(1, messages / BATCH / PUBLISHERS);
    ExecutorService pool = Executors.newFixedThreadPool(PUBLISHERS);
    try {
      long start = System.nanoTime();
      List<Future<?>> runs = new ArrayList<>();
      for (int t = 0; t < PUBLISHERS; t++) {
        runs.add(pool.submit(() -> {
          for (int b = 0; b < batchesPerThread; b++) {
            queues.publisher("bench").publish(batch).join();
          }
          return null;
        }));
      }
      for (Future<?> run : runs) {
        run.get();
      }
      return rate((long) batchesPerThread * PUBLISHERS * BATCH, start);
    } finally {
      pool.shutdownNow();
    }
  }

  private static double consume(Queues queues, int messages) throws Exception {
    long expected = (long) Math.max(1, messages / BATCH / PUBLISHERS) * PUBLISHERS * BATCH;
    AtomicLong delivered = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(CONSUMERS);
    try {
      long start = System.nanoTime();
      List<CompletableFuture<Void>> runs = new ArrayList<>();
      for (int c = 0; c < CONSUMERS; c++) {
        GroupConsumer consumer = queues.consumer("bench", "bench-group", "c" + c);
        runs.add(CompletableFuture.runAsync(() -> drain(consumer, delivered, expected), pool));
      }
      CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get();
      if (delivered.get() != expected) {
        throw new IllegalStateException("Cannot measure queue consumption: delivered "
            + delivered.get() + " of " + expected + " messages");
      }
      return rate(expected, start);
    } finally {
      pool.shutdownNow();
    }
  }

  private static void drain(GroupConsumer consumer, AtomicLong delivered, long expected) {
    while (delivered.get() < expected) {
      Optional<LeasedMessages> leased = consumer.poll();
      if (leased.isEmpty()) {
        pause();
        continue;
      }
      if (consumer.ack(leased.get().lease())) {
        delivered.addAndGet(leased.get().messages().size());
      }
    }
  }

  /** The other consumers hold every segment left: wait a little before asking again. */
  private static void pause() {
    try {
      Thread.sleep(2);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Cannot measure queue consumption: interrupted", e);
    }
  }

  private static double rate(long messages, long startNanos) {
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    return Math.round(messages / seconds);
  }
}
