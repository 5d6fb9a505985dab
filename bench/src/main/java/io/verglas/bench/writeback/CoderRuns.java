package io.verglas.bench.writeback;

import io.verglas.cache.writeback.code.Geometry;
import io.verglas.cache.writeback.code.StripeEncoder;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.RSRawErasureCoderFactory;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;

/** The coder runs the writeback benchmark times: ours and Hadoop's raw encoder. */
final class CoderRuns {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  /** Keeps results alive so the JIT cannot drop the work. */
  static volatile long sink;

  private CoderRuns() {}

  /** A body-sized piece of work. */
  interface Run {
    void once() throws IOException;
  }

  /** MB (10^6 bytes) of body per CPU second of this thread, over {@code measured} runs after {@code warmup}. */
  static double rate(int warmup, int measured, long bodyBytes, Run run) throws IOException {
    for (int i = 0; i < warmup; i++) {
      run.once();
    }
    long start = THREADS.getCurrentThreadCpuTime();
    for (int i = 0; i < measured; i++) {
      run.once();
    }
    double seconds = (THREADS.getCurrentThreadCpuTime() - start) / 1e9;
    return bodyBytes * (double) measured / 1e6 / seconds;
  }

  static void encode(Geometry geometry, byte[] body) throws IOException {
    StripeEncoder encoder = new StripeEncoder(geometry, (stripe, cells) -> sink += cells[cells.length - 1].get(0));
    encoder.write(ByteBuffer.wrap(body));
    encoder.finish();
  }

  static void rawEncode(Geometry geometry, byte[] body) throws IOException {
    RawErasureEncoder raw = new RSRawErasureCoderFactory()
        .createEncoder(new ErasureCoderOptions(geometry.dataFragments(), geometry.parityFragments()));
    int cell = geometry.cellBytes();
    ByteBuffer[] data = new ByteBuffer[geometry.dataFragments()];
    ByteBuffer[] parity = new ByteBuffer[geometry.parityFragments()];
    for (int j = 0; j < parity.length; j++) {
      parity[j] = ByteBuffer.allocate(cell);
    }
    for (int at = 0; at + geometry.stripeBytes() <= body.length; at += (int) geometry.stripeBytes()) {
      for (int i = 0; i < data.length; i++) {
        data[i] = ByteBuffer.wrap(body, at + i * cell, cell);
      }
      raw.encode(data, parity);
      sink += parity[0].get(0);
      for (ByteBuffer p : parity) {
        p.clear();
      }
    }
  }
}
