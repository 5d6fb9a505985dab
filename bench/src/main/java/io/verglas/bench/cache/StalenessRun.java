package io.verglas.bench.cache;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Overwrites objects through an endpoint between reads of them, and counts what readers saw.
 *
 * <p>Every 8-byte word of version v of object i is {@code v << 40 | i << 32 | word index}, so a
 * body tells which versions it holds. Objects live at mutable (non-Iceberg) keys and span
 * several blocks/slices. Phase one, sequential: each round PUTs version r of every object (the
 * PUT is acknowledged), then reads it whole and across a block boundary; a body of an older
 * version is a stale read, one mixing versions a torn read. Phase two, concurrent: readers read
 * while a writer overwrites; only torn reads count there (staleness is undefined mid-write). A
 * request that fails or is cut short counts as an error, not as a read.
 */
final class StalenessRun {
  static final int OBJECTS = 8;

  record Result(long reads, long stale, long torn, long errors) {}

  private StalenessRun() {}

  static String key(int object) {
    return "bench/stale/object-" + object + ".bin";
  }

  static byte[] content(int object, int version, int size) {
    ByteBuffer b = ByteBuffer.allocate(size);
    for (int w = 0; b.remaining() >= 8; w++) {
      b.putLong((long) version << 40 | (long) object << 32 | w);
    }
    return b.array();
  }

  /** -1 if the body is one version throughout, else -2 (mixed); the version otherwise. */
  static int version(byte[] body, long offset) {
    if (offset % 8 != 0 || body.length < 8) {
      throw new IllegalArgumentException("Cannot check a body at offset " + offset + " of " + body.length + " bytes");
    }
    ByteBuffer b = ByteBuffer.wrap(body);
    int first = (int) (b.getLong(0) >>> 40);
    for (int at = 8; at + 8 <= body.length; at += 8) {
      if ((int) (b.getLong(at) >>> 40) != first) {
        return -2;
      }
    }
    return first;
  }

  static Result run(RangeClient client, int objectSize, int rounds, int concurrentRounds) throws Exception {
    long reads = 0;
    long stale = 0;
    long torn = 0;
    long errors = 0;
    for (int i = 0; i < OBJECTS; i++) {
      client.put(key(i), content(i, 0, objectSize));
      client.getAll(key(i));
    }
    long boundaryStart = objectSize / 2 - objectSize / 4;
    BenchTable.Range across = null;
    for (int r = 1; r <= rounds; r++) {
      for (int i = 0; i < OBJECTS; i++) {
        client.put(key(i), content(i, r, objectSize));
        across = new BenchTable.Range(key(i), boundaryStart, boundaryStart + objectSize / 2 - 1);
        for (int read = 0; read < 2; read++) {
          try {
            byte[] body = read == 0 ? client.getAll(key(i)) : client.get(across);
            reads++;
            int v = version(body, read == 0 ? 0 : boundaryStart);
            if (v == -2) {
              torn++;
            } else if (v < r) {
              stale++;
            }
          } catch (java.io.IOException e) {
            errors++;
          }
        }
      }
    }
    Result concurrent = concurrent(client, objectSize, rounds + 1, concurrentRounds);
    return new Result(reads + concurrent.reads(), stale, torn + concurrent.torn(), errors + concurrent.errors());
  }

  private static Result concurrent(RangeClient client, int objectSize, int firstVersion, int rounds) throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong reads = new AtomicLong();
    AtomicLong torn = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<?>> readers = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        int offset = t;
        readers.add(pool.submit(() -> {
          int i = offset;
          while (!stop.get()) {
            try {
              byte[] body = client.getAll(key(i % OBJECTS));
              reads.incrementAndGet();
              if (version(body, 0) == -2) {
                torn.incrementAndGet();
              }
            } catch (java.io.IOException e) {
              errors.incrementAndGet();
            }
            i++;
          }
          return null;
        }));
      }
      for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < OBJECTS; i++) {
          client.put(key(i), content(i, firstVersion + r, objectSize));
        }
      }
      stop.set(true);
      for (Future<?> f : readers) {
        f.get();
      }
    } finally {
      stop.set(true);
      pool.shutdownNow();
    }
    return new Result(reads.get(), 0, torn.get(), errors.get());
  }
}
