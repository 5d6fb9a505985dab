package io.verglas.bench.writeback;

import io.verglas.bench.Benchmark;
import io.verglas.bench.BenchmarkReport;
import io.verglas.bench.ProcessMemory;
import io.verglas.bench.stack.TemporaryDirectory;
import io.verglas.cache.writeback.WriteBackConfig;
import io.verglas.cache.writeback.code.EncodedBody;
import io.verglas.cache.writeback.code.Geometry;
import java.io.OutputStream;
import java.util.Random;
import java.util.Set;

/**
 * {@code writeback}: the erasure coder of write-back, one core, and PUT acknowledgment through
 * the S3 endpoint with write-back against write-through over a latency-injected origin ({@link
 * AckRuns}): three cache nodes in this process form a cache cluster, PUTs go through one of them
 * (the coordinator), which places one fragment on each.
 *
 * <p>Acknowledgment metrics: {@code ack_p50_ms}/{@code ack_p99_ms} of write-back PUTs (8 MiB,
 * k=2, m=1, w=3), peers {@code write_through_ack_p50_ms}/{@code _p99_ms}, the ratio {@code
 * ack_speedup_vs_write_through} (write-through p50 over write-back p50), {@code
 * propagation_lag_p99_ms} and {@code acked_objects_lost} after a fragment node's and the
 * coordinator's crash and restart mid-run, {@code peak_rss_mb} of the whole benchmark process.
 *
 * <p>Coder metrics: {@code encode_mb_per_s_2_1} and {@code encode_mb_per_s_4_2}: body bytes (10^6
 * per MB) encoded per CPU second of the encoding thread by our streaming {@code StripeEncoder}
 * (Hadoop's pure-Java RS coder inside) on 8 MiB bodies with the default cell size;
 * {@code reconstruct_mb_per_s_4_2}: body bytes decoded per CPU second with two of the four
 * data fragments lost. Peers: {@code hadoop_raw_encode_mb_per_s_*}, Hadoop's raw encoder alone
 * on buffers cut in advance; the ratios say what the streaming layer keeps of it. CPU time of
 * the measuring thread, not wall time: on a shared machine it does not count the time other
 * processes held the core. The JMH benchmark {@code StripeEncodeBenchmark} in cache-node
 * measures the same pair with forks and warm-up, for comparing coder changes.
 */
public final class WriteBackBenchmark implements Benchmark {
  static final int BODY_BYTES = 8 << 20;
  static final int CELL_BYTES = WriteBackConfig.DEFAULT_CELL_BYTES;

  @Override
  public String name() {
    return "writeback";
  }

  @Override
  public String description() {
    return "Write-back's Reed-Solomon coder on 8 MiB bodies, one core: our streaming encoder at 2+1 and 4+2 "
        + "vs Hadoop's raw encoder alone, and reconstruction with two data fragments lost; then 8 MiB PUT "
        + "acknowledgment with write-back (3 nodes, a fragment on each) vs write-through over a latency-injected origin";
  }

  @Override
  public BenchmarkReport run(boolean quick) throws Exception {
    int warmup = quick ? 8 : 40;
    int measured = quick ? 24 : 160;
    byte[] body = new byte[BODY_BYTES];
    new Random(7).nextBytes(body);
    BenchmarkReport.Builder report = BenchmarkReport.builder(name(), quick)
        .environment("body_bytes", BODY_BYTES).environment("cell_bytes", CELL_BYTES)
        .environment("bodies_measured", measured).environment("bodies_warmup", warmup)
        .environment("clock", "CPU time of the one encoding thread; MB = 10^6 bytes of body")
        .environment("coder", "Hadoop RSRawErasureCoderFactory (pure Java), hadoop-client-api")
        .environment("note", "Write-back through the coordinator of 3 cache nodes in this process (k=2, m=1, "
            + "w=3: a fragment on each node, journal records copied to the other two); acked_objects_lost "
            + "covers a fragment node's and then the coordinator's halt and restart mid-run (in-process, "
            + "no leave message, not SIGKILL)")
        .environment("origin", "local directory; every PUT/DELETE delayed " + AckRuns.LATENCY.toMillis()
            + " ms + length at " + AckRuns.BANDWIDTH_BYTES_PER_S / 1_000_000 + " MB/s; reads not delayed")
        .environment("ack_puts_measured", quick ? 10 : 40);
    for (Geometry g : new Geometry[] {new Geometry(2, 1, CELL_BYTES), new Geometry(4, 2, CELL_BYTES)}) {
      String suffix = "_" + g.dataFragments() + "_" + g.parityFragments();
      double ours = CoderRuns.rate(warmup, measured, body.length, () -> CoderRuns.encode(g, body));
      double raw = CoderRuns.rate(warmup, measured, body.length, () -> CoderRuns.rawEncode(g, body));
      report.metric("encode_mb_per_s" + suffix, round(ours)).peer("hadoop_raw_encode_mb_per_s" + suffix, round(raw))
          .ratio("stripe_encoder_vs_raw_hadoop" + suffix, ours, raw);
    }
    Geometry wide = new Geometry(4, 2, CELL_BYTES);
    EncodedBody encoded = EncodedBody.of(wide, body);
    report.metric("reconstruct_mb_per_s_4_2", round(CoderRuns.rate(warmup / 2, measured / 2, body.length,
        () -> encoded.decode(Set.of(0, 1), OutputStream.nullOutputStream()))));
    acknowledgments(quick, report);
    return report.build();
  }

  private static void acknowledgments(boolean quick, BenchmarkReport.Builder report) throws Exception {
    try (TemporaryDirectory dir = TemporaryDirectory.create("verglas-bench-writeback")) {
      AckRuns.Result r = new AckRuns(dir.path(), BODY_BYTES).run(quick ? 2 : 5, quick ? 10 : 40);
      double wb = AckRuns.percentileMillis(r.writeBackNanos(), 0.5);
      double wt = AckRuns.percentileMillis(r.writeThroughNanos(), 0.5);
      report.metric("ack_p50_ms", wb).metric("ack_p99_ms", AckRuns.percentileMillis(r.writeBackNanos(), 0.99))
          .peer("write_through_ack_p50_ms", wt)
          .peer("write_through_ack_p99_ms", AckRuns.percentileMillis(r.writeThroughNanos(), 0.99))
          .ratio("ack_speedup_vs_write_through", wt, wb)
          .metric("propagation_lag_p99_ms", AckRuns.percentileMillis(r.lagNanos(), 0.99))
          .metric("acked_objects_lost", r.lost()).environment("acked_objects", r.acked())
          .metric("peak_rss_mb", ProcessMemory.peakRssMb());
    }
  }

  private static double round(double value) {
    return Math.round(value * 10.0) / 10.0;
  }
}
