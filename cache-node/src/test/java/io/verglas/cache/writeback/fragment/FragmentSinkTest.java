package io.verglas.cache.writeback.fragment;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.writeback.code.Geometry;
import io.verglas.cache.writeback.code.StripeDecoder;
import io.verglas.cache.writeback.code.StripeEncoder;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Parallel commits of a write's fragments into real stores: the fsyncs overlap, a commit that
 * fails drops only its fragment, and {@link FragmentSink#commit()} returns only after the
 * slowest commit, so nothing downstream (the journal, the
 * acknowledgment) can run before every fragment it counts is durable.
 */
class FragmentSinkTest {
  static final Geometry RS_2_1 = new Geometry(2, 1, 1000);
  static final ObjectIdentity ID = new ObjectIdentity("bucket", "db/t/data/a.parquet", "w-1");
  static final byte[] BODY = body(5_555);

  @TempDir Path dir;
  private final ExecutorService pool = Executors.newFixedThreadPool(3);

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  @Test
  void theCommitsOfAWriteRunInParallel() throws Exception {
    CyclicBarrier allThree = new CyclicBarrier(3);
    List<HookedOutput> outputs = outputs(3);
    // each commit finishes only once all three are under way at the same time
    outputs.forEach(o -> o.beforeCommit = () -> allThree.await(10, TimeUnit.SECONDS));

    assertThat(encoded(outputs, pool).commit()).containsExactly(0, 1, 2);
    assertThat(committedFiles()).isEqualTo(3);
  }

  @Test
  void aFailedFsyncDropsOnlyItsFragment() throws Exception {
    List<HookedOutput> outputs = outputs(3);
    outputs.get(1).beforeCommit = () -> {
      throw new IOException("fsync failed: input/output error");
    };
    FragmentSink sink = encoded(outputs, pool);

    assertThat(sink.commit()).containsExactly(0, 2);
    assertThat(sink.failure(1)).hasMessageContaining("fsync failed");
    assertThat(committedFiles()).as("fragment 1 abandoned, its temporary file deleted").isEqualTo(2);
    try (var left = Files.list(dir.resolve("node-1"))) {
      assertThat(left.toList()).isEmpty();
    }
  }

  @Test
  void commitReturnsOnlyAfterTheSlowestFsync() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    List<HookedOutput> outputs = outputs(3);
    outputs.get(2).beforeCommit = () -> release.await(10, TimeUnit.SECONDS);
    FragmentSink sink = encoded(outputs, pool);

    CompletableFuture<List<Integer>> durable = CompletableFuture.supplyAsync(() -> sink.commit());
    Thread.sleep(200);
    assertThat(durable).as("waiting for fragment 2's fsync").isNotDone();
    release.countDown();
    assertThat(durable.get(10, TimeUnit.SECONDS)).containsExactly(0, 1, 2);
  }

  @Test
  void aRefusedCommitCountsAsAFailure() throws Exception {
    FragmentSink sink = encoded(outputs(3), pool);
    pool.shutdown();

    assertThat(sink.commit()).isEmpty();
    assertThat(committedFiles()).isZero();
  }

  @Test
  void stripesWrittenWhileTheNextIsCodedReadBackIdentical() throws Exception {
    byte[] body = body(RS_2_1.cellBytes() * 2 * 40 + 333);
    for (boolean inPlace : new boolean[] {false, true}) {
      ObjectIdentity id = new ObjectIdentity("bucket", "k", "w-" + inPlace);
      List<FragmentStore> stores = new ArrayList<>();
      List<FragmentOutput> outputs = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        stores.add(FragmentStore.open(dir.resolve("node-" + i), 1 << 20));
        outputs.add(stores.get(i).create(new FragmentHeader(id, RS_2_1, i, body.length)));
      }
      FragmentSink sink = new FragmentSink(outputs, pool);
      StripeEncoder encoder = new StripeEncoder(RS_2_1, sink);
      if (inPlace) {
        byte[] chunk = body.clone();
        encoder.write(ByteBuffer.wrap(chunk));
        java.util.Arrays.fill(chunk, (byte) 0); // the caller reuses its chunk once write returns
      } else {
        encoder.transfer(new ByteArrayInputStream(body));
      }
      encoder.finish();
      assertThat(sink.commit()).containsExactly(0, 1, 2);

      List<FragmentReader> readers = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        readers.add(stores.get(i).open(id, i));
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      new StripeDecoder(RS_2_1).decode(body.length, new FragmentCells(new FragmentHeader(id, RS_2_1, 0,
          body.length), readers), out);
      for (FragmentReader reader : readers) {
        reader.close();
      }
      assertThat(out.toByteArray()).as("in place: " + inPlace).isEqualTo(body);
    }
  }

  /** Real store outputs, one store per node, with a hook before each commit. */
  private List<HookedOutput> outputs(int n) throws IOException {
    List<HookedOutput> outputs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      FragmentStore store = FragmentStore.open(dir.resolve("node-" + i), 1 << 20);
      outputs.add(new HookedOutput(store.create(new FragmentHeader(ID, RS_2_1, i, BODY.length))));
    }
    return outputs;
  }

  private static FragmentSink encoded(List<HookedOutput> outputs, Executor io) throws IOException {
    FragmentSink sink = new FragmentSink(List.copyOf(outputs), io);
    StripeEncoder encoder = new StripeEncoder(RS_2_1, sink);
    encoder.transfer(new ByteArrayInputStream(BODY));
    encoder.finish();
    return sink;
  }

  private long committedFiles() throws IOException {
    long count = 0;
    for (int i = 0; i < 3; i++) {
      try (var files = Files.list(dir.resolve("node-" + i))) {
        count += files.filter(f -> f.toString().endsWith(FragmentStore.SUFFIX)).count();
      }
    }
    return count;
  }

  private static byte[] body(int length) {
    byte[] body = new byte[length];
    new Random(7).nextBytes(body);
    return body;
  }

  /** A step run before the real commit. */
  @FunctionalInterface
  interface Step {
    void run() throws Exception;
  }

  /** A store's real output, with a step (a wait, a failure) injected before its commit. */
  static final class HookedOutput implements FragmentOutput {
    private final FragmentOutput real;
    volatile Step beforeCommit = () -> { };

    HookedOutput(FragmentOutput real) {
      this.real = real;
    }

    @Override
    public FragmentHeader header() {
      return real.header();
    }

    @Override
    public void writeCell(ByteBuffer cell) throws IOException {
      real.writeCell(cell);
    }

    @Override
    public void commit() throws IOException {
      try {
        beforeCommit.run();
      } catch (IOException e) {
        throw e;
      } catch (Exception e) {
        throw new IOException("Cannot commit: " + e, e);
      }
      real.commit();
    }

    @Override
    public void close() throws IOException {
      real.close();
    }
  }
}
