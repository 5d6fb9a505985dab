package io.verglas.workers.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Per-deployment concurrency limits with two dispatchers on one database and the real clock:
 * handlers record when they start and end, and runs of a deployment never overlap more than
 * its limit, whether its jobs come from another producer (claims) or are submitted locally to
 * either dispatcher (leased at enqueue); the jobs over the limit wait and all run once.
 */
class ConcurrencyLimitITCase {
  private static final Duration RUN = Duration.ofMillis(120);
  private final Map<String, Queue<long[]>> runs = new ConcurrentHashMap<>();

  @RegisterExtension
  final QueueFixture queue = new QueueFixture();

  private Dispatcher dispatcher(String owner) {
    return Dispatcher.builder(queue.database(), lease -> {
      long start = System.nanoTime();
      Thread.sleep(RUN.toMillis());
      runs.computeIfAbsent(lease.deployment(), d -> new ConcurrentLinkedQueue<>())
          .add(new long[] {start, System.nanoTime()});
    }).owner(owner).concurrency(4).maxIdle(Duration.ofSeconds(30)).build().start();
  }

  @Test
  void twoDispatchersNeverRunADeploymentBeyondItsLimit() throws Exception {
    queue.producer().limitConcurrency(Map.of("one", 1, "three", 3));
    assertThat(queue.producer().concurrencyLimit("three")).contains(3);
    try (Dispatcher a = dispatcher("a"); Dispatcher b = dispatcher("b")) {
      List<NewJob> queued = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        queued.add(job("one", "q" + i));
        queued.add(job("three", "q" + i));
      }
      assertThat(queue.producer().enqueueAll(queued)).isEqualTo(6);
      for (int i = 0; i < 3; i++) { // local submits race the claims on both dispatchers
        assertThat((i % 2 == 0 ? a : b).submit(job("one", "s" + i))).isTrue();
        assertThat((i % 2 == 0 ? b : a).submit(job("three", "s" + i))).isTrue();
      }
      for (int i = 3; i < 6; i++) {
        assertThat(a.submit(job("three", "s" + i))).isTrue();
      }
      Await.until(() -> queue.db().count("state = 'done'") == 15, Duration.ofSeconds(30));
    }
    assertThat(queue.db().count("attempts <> 1 or state <> 'done'"))
        .as("no job failed or ran twice").isZero();
    assertThat(runs.get("one")).hasSize(6);
    assertThat(runs.get("three")).hasSize(9);
    assertThat(maxOverlap(runs.get("one"))).as("maxConcurrency 1").isEqualTo(1);
    assertThat(maxOverlap(runs.get("three"))).as("maxConcurrency 3").isBetween(2, 3);
  }

  @Test
  void anUnlimitedDeploymentIsNotHeldBackByALimitedOne() throws Exception {
    queue.producer().limitConcurrency(Map.of("one", 1));
    try (Dispatcher a = dispatcher("a"); Dispatcher b = dispatcher("b")) {
      List<NewJob> queued = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        queued.add(job("one", "q" + i));
        queued.add(job("free", "q" + i));
      }
      queue.producer().enqueueAll(queued);
      Await.until(() -> queue.db().count("state = 'done'") == 8, Duration.ofSeconds(30));
    }
    assertThat(maxOverlap(runs.get("one"))).isEqualTo(1);
    assertThat(maxOverlap(runs.get("free"))).as("4 unlimited jobs, 8 handler threads")
        .isGreaterThan(1);
    assertThat(queue.producer().unlimitConcurrency(List.of("one", "free"))).isEqualTo(1);
    assertThat(queue.producer().concurrencyLimit("one")).isEmpty();
  }

  private static NewJob job(String deployment, String id) {
    String identity = deployment + "/" + id;
    return NewJob.builder(identity, deployment, TestEvents.manual(identity)).build();
  }

  /** The most runs in progress at one instant. */
  private static int maxOverlap(Queue<long[]> intervals) {
    List<long[]> edges = new ArrayList<>();
    for (long[] run : intervals) {
      edges.add(new long[] {run[0], 1});
      edges.add(new long[] {run[1], -1});
    }
    edges.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
    int now = 0;
    int max = 0;
    for (long[] edge : edges) {
      now += (int) edge[1];
      max = Math.max(max, now);
    }
    return max;
  }
}
