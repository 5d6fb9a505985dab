package io.verglas.bench.cache;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Plain (unsigned) HTTP range reads against one endpoint, the same client for every peer so
 * only the server side differs. A pass runs engine tasks on a fixed number of streams; each
 * task's reads are sequential, as a reader thread of an engine issues them.
 *
 * <p>Requests go over keep-alive {@link HttpConnection}s from a pool (one per stream once warm),
 * a lean client chosen so that its own cost, which every server pays alike and which shares the
 * machine's cores with the server under test, stays small and does not drown the difference
 * between servers. A connection that failed or was closed by the server is dropped, never
 * reused.
 */
final class RangeClient implements AutoCloseable {
  private static final int TIMEOUT_MILLIS = 120_000;

  private final URI endpoint;
  private final String bucket;
  private final int streams;
  private final ConcurrentLinkedDeque<HttpConnection> idle = new ConcurrentLinkedDeque<>();
  private volatile boolean closed;

  RangeClient(URI endpoint, String bucket, int streams) {
    this.endpoint = endpoint;
    this.bucket = bucket;
    this.streams = streams;
  }

  /** What a pass did. */
  record PassResult(double seconds, long requests, long bytes) {}

  private String path(String key) {
    return "/" + bucket + "/" + key;
  }

  private static String rangeHeader(BenchTable.Range range) {
    return "Range: bytes=" + range.start() + "-" + range.end() + "\r\n";
  }

  /** Bytes of the range; fails unless the server answers 206 with exactly those bytes' count. */
  byte[] get(BenchTable.Range range) throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream((int) range.length());
    HttpConnection.Head head = exchange("GET", path(range.key()), rangeHeader(range), null, body::write);
    if (head.status() != 206 || body.size() != range.length()) {
      throw new IOException("Cannot read " + range + " from " + endpoint + ": status "
          + head.status() + ", " + body.size() + " bytes");
    }
    return body.toByteArray();
  }

  /** The whole object (status 200). */
  byte[] getAll(String key) throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    HttpConnection.Head head = exchange("GET", path(key), "", null, body::write);
    if (head.status() != 200) {
      throw new IOException("Cannot read " + key + " from " + endpoint + ": status " + head.status());
    }
    return body.toByteArray();
  }

  void put(String key, byte[] content) throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    HttpConnection.Head head = exchange("PUT", path(key), "", content, body::write);
    if (head.status() != 200) {
      throw new IOException("Cannot write " + key + " through " + endpoint + ": status "
          + head.status() + " " + body.toString(StandardCharsets.UTF_8));
    }
  }

  /**
   * Reads the range and returns how many body bytes arrived, without keeping them (a pass moves
   * gigabytes; collecting them would make the client's garbage the benchmark). Fails unless the
   * server answers 206 with the range's length.
   */
  long fetch(BenchTable.Range range) throws IOException {
    long[] count = new long[1];
    HttpConnection.Head head = exchange("GET", path(range.key()), rangeHeader(range), null,
        (buffer, offset, length) -> count[0] += length);
    if (head.status() != 206 || count[0] != range.length()) {
      throw new IOException("Cannot read " + range + " from " + endpoint + ": status "
          + head.status() + ", " + count[0] + " bytes");
    }
    return count[0];
  }

  /**
   * One request on a pooled connection; the connection goes back only if it can be reused. A
   * pooled connection the server closed while it sat idle (keep-alive timeout) fails before any
   * byte of the answer arrives: then, and only then, the request is sent once more on a new
   * connection, as HTTP clients do.
   */
  private HttpConnection.Head exchange(String method, String path, String headers, byte[] body,
      HttpConnection.BodySink sink) throws IOException {
    if (closed) {
      throw new IOException("Cannot send a request through a closed client");
    }
    HttpConnection pooled = idle.pollFirst();
    if (pooled != null) {
      try {
        return exchangeOn(pooled, method, path, headers, body, sink);
      } catch (IOException e) {
        if (pooled.answerStarted()) {
          throw e;
        }
      }
    }
    return exchangeOn(new HttpConnection(endpoint, TIMEOUT_MILLIS), method, path, headers, body, sink);
  }

  private HttpConnection.Head exchangeOn(HttpConnection connection, String method, String path,
      String headers, byte[] body, HttpConnection.BodySink sink) throws IOException {
    try {
      HttpConnection.Head head = connection.exchange(method, path, headers, body, sink);
      if (connection.reusable() && !closed) {
        idle.addFirst(connection);
        connection = null;
      }
      return head;
    } finally {
      if (connection != null) {
        connection.close();
      }
    }
  }

  /** Runs every task, {@code streams} at a time, and times the whole. */
  PassResult pass(List<List<BenchTable.Range>> tasks) throws Exception {
    AtomicInteger next = new AtomicInteger();
    AtomicLong requests = new AtomicLong();
    AtomicLong bytes = new AtomicLong();
    List<Future<?>> workers = new ArrayList<>();
    long start = System.nanoTime();
    ExecutorService runners = Executors.newFixedThreadPool(streams);
    try {
      for (int w = 0; w < streams; w++) {
        workers.add(runners.submit(() -> {
          int i;
          while ((i = next.getAndIncrement()) < tasks.size()) {
            for (BenchTable.Range range : tasks.get(i)) {
              bytes.addAndGet(fetch(range));
              requests.incrementAndGet();
            }
          }
          return null;
        }));
      }
      for (Future<?> f : workers) {
        f.get();
      }
    } finally {
      runners.shutdownNow();
    }
    return new PassResult((System.nanoTime() - start) / 1e9, requests.get(), bytes.get());
  }

  /** Latencies in milliseconds of the ranges read one after the other. */
  double[] latencies(List<BenchTable.Range> ranges) throws IOException {
    double[] ms = new double[ranges.size()];
    for (int i = 0; i < ranges.size(); i++) {
      long t0 = System.nanoTime();
      fetch(ranges.get(i));
      ms[i] = (System.nanoTime() - t0) / 1e6;
    }
    return ms;
  }

  @Override
  public void close() {
    closed = true;
    HttpConnection connection;
    while ((connection = idle.pollFirst()) != null) {
      connection.close();
    }
  }
}
