package io.verglas.cache.writeback.code;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Encoding one 8 MiB body on one thread: our {@link StripeEncoder} (copy into the stripe
 * buffer, Hadoop's RS coder, cells handed to a sink) against Hadoop's raw encoder alone on
 * buffers cut in advance (its peer: what the streaming layer costs on top of the coder). Data
 * MB/s = ops/s × 8.388608. Run: {@code mvn -B -Pjmh -pl cache-node -am verify -DskipTests
 * -Djmh.args="StripeEncodeBenchmark -rf json -rff target/jmh-result.json"}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class StripeEncodeBenchmark {
  static final int BODY_BYTES = 8 << 20;

  @Param({"2+1", "4+2"})
  public String code;

  @Param({"1048576"})
  public int cellBytes;

  private Geometry geometry;
  private byte[] body;
  private ByteBuffer[] rawData;
  private ByteBuffer[] rawParity;
  private RawErasureEncoder raw;

  @Setup
  public void setUp() {
    String[] km = code.split("\\+");
    geometry = new Geometry(Integer.parseInt(km[0]), Integer.parseInt(km[1]), cellBytes);
    body = new byte[BODY_BYTES];
    new Random(1).nextBytes(body);
    raw = ReedSolomon.encoder(geometry);
    rawData = new ByteBuffer[geometry.dataFragments()];
    rawParity = new ByteBuffer[geometry.parityFragments()];
    for (int j = 0; j < rawParity.length; j++) {
      rawParity[j] = ByteBuffer.allocate(cellBytes);
    }
  }

  @Benchmark
  public long stripeEncoder(Blackhole sink) throws IOException {
    StripeEncoder encoder = new StripeEncoder(geometry, (stripe, cells) -> sink.consume(cells));
    encoder.write(ByteBuffer.wrap(body));
    return encoder.finish();
  }

  @Benchmark
  public void hadoopRawEncoder(Blackhole sink) throws IOException {
    int stripe = (int) geometry.stripeBytes();
    for (int at = 0; at + stripe <= body.length; at += stripe) {
      for (int i = 0; i < rawData.length; i++) {
        rawData[i] = ByteBuffer.wrap(body, at + i * cellBytes, cellBytes);
      }
      for (ByteBuffer p : rawParity) {
        p.clear();
      }
      raw.encode(rawData, rawParity);
      sink.consume(rawParity);
    }
  }
}
