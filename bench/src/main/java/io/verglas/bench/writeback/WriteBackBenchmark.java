package io.verglas.bench.writeback;

import io.verglas.bench.Benchmark;
import io.verglas.bench.BenchmarkReport;
import io.verglas.cache.writeback.WriteBackConfig;
import io.verglas.cache.writeback.code.EncodedBody;
import io.verglas.cache.writeback.code.Geometry;
import java.io.OutputStream;
import java.util.Random;
import java.util.Set;

/**
 * {@code writeback}: the erasure coder of write-back, one core. Of the metrics only the
 * coder's are measured so far: write-back is not on the S3 PUT path and fragments do not travel
 * between nodes yet (staging and propagation exist in one JVM only), so {@code ack_p50_ms}/{@code ack_p99_ms},
 * {@code propagation_lag_p99_ms}, {@code acked_objects_lost} and the ratio
 * {@code ack_speedup_vs_write_through} are absent, and the report's environment says so.
 *
 * <p>Metrics: {@code encode_mb_per_s_2_1} and {@code encode_mb_per_s_4_2}: body bytes (10^6
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
        + "vs Hadoop's raw encoder alone, and reconstruction with two data fragments lost";
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
        .environment("note", "Only the coder is measured: write-back is not on the S3 PUT path and its "
            + "fragments do not travel between nodes yet, so ack_p50_ms, ack_p99_ms (write-back and write-through), propagation_lag_p99_ms, "
            + "acked_objects_lost and ack_speedup_vs_write_through are not reported");
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
    return report.build();
  }

  private static double round(double value) {
    return Math.round(value * 10.0) / 10.0;
  }
}
