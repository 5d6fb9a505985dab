package io.verglas.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ThreadCpuTest {
  @Test
  void groupsDropSubtaskAndPoolNumbers() {
    assertThat(ThreadCpu.group("Delta writer (1/2)#0")).isEqualTo("Delta writer");
    assertThat(ThreadCpu.group("Delta writer (2/2)#3")).isEqualTo("Delta writer");
    assertThat(ThreadCpu.group("verglas-data-writer-7")).isEqualTo("verglas-data-writer");
    assertThat(ThreadCpu.group("Source Data Fetcher for Source: WAL source -> Delta writer (1/1)#0"))
        .isEqualTo("Source Data Fetcher for Source: WAL source -> Delta writer");
  }

  @Test
  void samplingSeesWhenABusyThreadRanAndCountsItAfterItEnded() throws Exception {
    long opened = System.nanoTime();
    try (ThreadCpu cpu = ThreadCpu.sampling(Duration.ofMillis(10))) {
      Thread.sleep(100);
      double started = (System.nanoTime() - opened) / 1e9;
      Thread busy = new Thread(() -> spin(Duration.ofMillis(300)), "bench-test-busy-1");
      busy.start();
      busy.join();
      double ended = (System.nanoTime() - opened) / 1e9;
      Thread.sleep(100); // sampled for several periods after it ended

      ThreadCpu.Activity active = cpu.activity("bench-test-busy").orElseThrow();
      assertThat(active.firstSeconds()).isGreaterThanOrEqualTo(started - 0.005);
      assertThat(active.lastSeconds()).isLessThanOrEqualTo(ended + 0.05);
      assertThat(active.lastSeconds() - active.firstSeconds()).isGreaterThan(0.2);
      assertThat(cpu.activity("no such thread")).isEmpty();
      // The thread has ended: only the samples count it.
      assertThat(cpu.topGroups(50).get("bench-test-busy")).isGreaterThan(0.2);
    }
  }

  /**
   * Sampled at the benchmarks' period (100 ms, busy from 10 ms of CPU in a period): with a 20 ms
   * period, the 2 ms threshold was within what a new thread's first run costs on a loaded
   * machine, and the test failed now and then.
   */
  @Test
  void aThreadThatMostlyWaitsIsNotBusy() throws Exception {
    try (ThreadCpu cpu = ThreadCpu.sampling(Duration.ofMillis(100))) {
      Thread waiting = new Thread(() -> {
        for (int i = 0; i < 25; i++) {
          try {
            Thread.sleep(20);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "bench-test-waiting-1");
      waiting.start();
      waiting.join();
      Thread.sleep(250);
      assertThat(cpu.activity("bench-test-waiting")).isEmpty();
    }
  }

  @Test
  void withoutSamplingNoActivityIsSeen() throws Exception {
    try (ThreadCpu cpu = ThreadCpu.start()) {
      Thread busy = new Thread(() -> spin(Duration.ofMillis(50)), "bench-test-busy-2");
      busy.start();
      busy.join();
      assertThat(cpu.activity("bench-test-busy")).isEmpty();
    }
  }

  private static void spin(Duration duration) {
    long end = System.nanoTime() + duration.toNanos();
    long sink = 0;
    while (System.nanoTime() < end) {
      sink += Long.numberOfTrailingZeros(sink + 1);
    }
    if (sink == 42) {
      System.out.print("");
    }
  }
}
