package io.verglas.sdk;

import io.verglas.protocol.BatchMetadata;
import io.verglas.protocol.BatchMetadataParser;
import io.verglas.protocol.IngestProtocol;
import io.verglas.protocol.PutAck;
import io.verglas.protocol.PutAckParser;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * One {@code DoPut} stream to one table, re-opened after transient failures.
 *
 * <p>Design: {@link #write} sends a batch and returns at once with a future of its
 * acknowledgement; the server acknowledges batches in order, each only after the WAL segment
 * holding it is durable, so {@link PutAck}s are matched to the oldest unacknowledged batch. At
 * most {@code maxInFlightBatches} batches may await their ack; {@code write} blocks beyond that,
 * which bounds the memory gRPC buffers when the server applies backpressure.
 *
 * <p>Retries: when the call fails with UNAVAILABLE (server restarting, fenced, object store down,
 * connection lost) and every unacknowledged batch has an idempotency key, the writer opens a new
 * stream (after a backoff, up to {@code writeRetries} times in a row) and sends those batches
 * again, in order, with their keys: the server answers batches it already made durable with
 * their first acknowledgement, so nothing is applied twice. A writer keeps a copy of each keyed
 * batch until it is acknowledged for this. Batches without a key are never resent (their failure
 * is reported); {@code autoIdempotencyKeys} gives every batch a key of its own.
 *
 * <p>The stream starts with the first batch's schema; later batches must have the same schema.
 * Each batch's data is copied before {@code write} returns, so the caller may reuse or close its
 * root right away. Batches are sent with Arrow IPC buffer compression as the client's
 * {@link BatchCompression} says (by default zstd from 64 KiB of buffers). A rejected batch (INVALID_ARGUMENT and other non-transient failures) ends the
 * writer: the server first sends the acks of the batches before it, then the error; later
 * writes fail with the same {@link VerglasException}.
 *
 * <p>Thread-safety: {@code write}, {@code flush} and {@code close} may be called from different
 * threads, but batches are sent in the order the {@code write} calls enter. Two monitors: this
 * object's guards the stream and sending (held while a stream is re-opened and refilled), and
 * {@code state}'s guards the queue of unacknowledged batches; gRPC callbacks take only the
 * latter, so they never wait for a sender.
 */
public final class TableWriter implements AutoCloseable {
  private static final long SERVER_ERROR_WAIT_SECONDS = 5;
  private static final long READY_POLL_NANOS = 1_000_000;
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

  /** A batch sent (or to be sent again) and not yet acknowledged. */
  private static final class Pending {
    final CompletableFuture<PutAck> future = new CompletableFuture<>();
    final String key;
    final byte[] copy;

    Pending(String key, byte[] copy) {
      this.key = key;
      this.copy = copy;
    }
  }

  private final FlightClient flight;
  private final BufferAllocator allocator;
  private final TableIdentifier table;
  private final FlightDescriptor descriptor;
  private final CallOption[] options;
  private final Semaphore inFlight;
  private final Consumer<PutAck> onAck;
  private final Consumer<TableWriter> onClose;
  private final int writeRetries;
  private final Duration retryBackoff;
  private final Executor retryExecutor;
  private final String autoKeyPrefix;
  private final AtomicLong autoKeys = new AtomicLong();
  /** Guarded by "this", as the stream it sets up. */
  private final CompressingPut compressing;

  // Guarded by "this": the current stream and the root whose buffers go onto the wire.
  private FlightClient.ClientStreamListener stream;
  private VectorSchemaRoot sendRoot;
  private boolean closed;

  // Guarded by "state".
  private final Object state = new Object();
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();
  private final List<PutAck> acks = new ArrayList<>();
  private AckListener listener;
  private CompletableFuture<PutAck> lastSent = CompletableFuture.completedFuture(null);
  private int retriesInARow;
  private boolean recovering;
  /** The stream ended (transiently) with nothing unacknowledged: the next write opens one. */
  private boolean idleBroken;
  private volatile VerglasException failure;

  TableWriter(FlightClient flight, BufferAllocator allocator, TableIdentifier table,
      FlightDescriptor descriptor, CallOption[] options, int maxInFlightBatches,
      Consumer<PutAck> onAck, Consumer<TableWriter> onClose, int writeRetries,
      Duration retryBackoff, boolean autoIdempotencyKeys, Executor retryExecutor,
      BatchCompression compression) {
    this.flight = flight;
    this.allocator = allocator;
    this.table = table;
    this.descriptor = descriptor;
    this.options = options;
    this.inFlight = new Semaphore(maxInFlightBatches);
    this.onAck = onAck;
    this.onClose = onClose;
    this.writeRetries = writeRetries;
    this.retryBackoff = retryBackoff;
    this.retryExecutor = retryExecutor;
    this.autoKeyPrefix = autoIdempotencyKeys ? "sdk-" + UUID.randomUUID() + "-" : null;
    this.compressing = new CompressingPut(compression);
  }

  public TableIdentifier table() {
    return table;
  }

  /** Sends one batch (with an automatic idempotency key if the client gives every batch one). */
  public CompletableFuture<PutAck> write(VectorSchemaRoot batch) {
    return write(batch, null);
  }

  /**
   * Sends one batch; the future completes with its acknowledgement once it is durable, or
   * exceptionally with a {@link VerglasException}.
   *
   * @param idempotencyKey names the batch so a retry of it is applied once, or null
   * @throws VerglasException if the stream already failed
   * @throws IllegalArgumentException if the batch's schema differs from the first batch's or
   *     the key is invalid
   */
  public CompletableFuture<PutAck> write(VectorSchemaRoot batch, String idempotencyKey) {
    String key = idempotencyKey != null ? idempotencyKey
        : autoKeyPrefix == null ? null : autoKeyPrefix + autoKeys.incrementAndGet();
    byte[] metadata = key == null ? null
        : BatchMetadataParser.toBytes(BatchMetadata.withKey(key));
    throwIfFailed();
    acquireSlot();
    boolean handedOff = false;
    try {
      synchronized (this) {
        if (closed) {
          throw new IllegalStateException("Cannot write batch: writer for " + table + " is closed");
        }
        throwIfFailed();
        if (sendRoot == null) {
          sendRoot = VectorSchemaRoot.create(batch.getSchema(), allocator);
        } else if (!sendRoot.getSchema().equals(batch.getSchema())) {
          throw new IllegalArgumentException("Cannot write batch to " + table
              + ": its schema differs from the first batch of this writer: " + batch.getSchema()
              + " vs " + sendRoot.getSchema());
        }
        Pending entry = new Pending(key, key != null && writeRetries > 0 ? copy(batch) : null);
        AckListener current;
        boolean queued;
        boolean reopenNow;
        synchronized (state) {
          pending.add(entry);
          lastSent = entry.future;
          current = listener;
          queued = recovering;
          reopenNow = idleBroken;
          idleBroken = false;
        }
        if (reopenNow) {
          stream = null;
        }
        handedOff = true;
        if (queued) {
          // The stream broke and is being re-opened: the batch is sent with the others then.
          return entry.future;
        }
        if (stream == null) {
          current = open();
          if (current == null) {
            return entry.future;
          }
        }
        send(batch, metadata, current);
        return entry.future;
      }
    } finally {
      if (!handedOff) {
        inFlight.release();
      }
    }
  }

  /** Waits until every batch written so far is acknowledged; throws the stream's failure. */
  public void flush() {
    CompletableFuture<PutAck> last;
    synchronized (state) {
      last = lastSent;
    }
    try {
      // Acks arrive in order and a failure fails every later batch: the last one decides.
      last.join();
    } catch (RuntimeException e) {
      throw VerglasException.from(e);
    }
  }

  /**
   * The acknowledgements received so far, in batch order. They are all kept: a writer that
   * lives for millions of batches should consume them through the {@code onAck} callback of
   * {@link VerglasClient#openWriter(TableIdentifier, Consumer)} and be reopened now and then.
   */
  public List<PutAck> acks() {
    synchronized (state) {
      return List.copyOf(acks);
    }
  }

  /**
   * Waits until every batch is acknowledged (re-opening the stream if needed), then ends the
   * stream and waits for the server to complete the call. Idempotent; throws the writer's
   * failure, if any, on the first call.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
    }
    try {
      flush();
    } catch (VerglasException e) {
      // reported below
    }
    FlightClient.ClientStreamListener toComplete;
    AckListener current;
    synchronized (this) {
      closed = true;
      toComplete = stream;
      synchronized (state) {
        current = listener;
        if (idleBroken) {
          toComplete = null; // the server ended it, and every batch was acknowledged
        }
      }
    }
    try {
      if (toComplete != null) {
        if (failure == null) {
          try {
            toComplete.completed();
            if (current != null) {
              current.awaitEnd();
            }
          } catch (RuntimeException e) {
            fail(VerglasException.from(e));
          }
        } else {
          cancelCall(toComplete);
        }
      }
    } finally {
      release();
    }
    VerglasException current2 = failure;
    if (current2 != null) {
      // A new instance: try-with-resources must not add an exception to itself as suppressed.
      throw new VerglasException(current2.code(), current2.description(), current2);
    }
  }

  /** Cancels the stream without waiting for acknowledgements (the client is closing). */
  void cancel() {
    FlightClient.ClientStreamListener toCancel;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      toCancel = stream;
    }
    fail(new VerglasException(FlightStatusCode.CANCELLED, "Writer to " + table
        + " was cancelled because its client closed"));
    try {
      if (toCancel != null) {
        cancelCall(toCancel);
      }
    } finally {
      release();
    }
  }

  /**
   * Opens the first stream; returns its listener, or null if it failed at once (then a retry
   * is scheduled, or the writer failed). The listener is installed before the call starts:
   * gRPC may report a failure from inside {@code startPut}.
   */
  private AckListener open() {
    AckListener next = new AckListener();
    synchronized (state) {
      listener = next;
    }
    try {
      stream = flight.startPut(descriptor, sendRoot, next, options);
    } catch (RuntimeException e) {
      stream = null;
      streamFailed(next, VerglasException.from(e));
      throwIfFailed();
      return null;
    }
    synchronized (state) {
      return listener == next ? next : null;
    }
  }

  private void cancelCall(FlightClient.ClientStreamListener call) {
    try {
      call.error(failure == null ? new VerglasException(FlightStatusCode.CANCELLED, "closed")
          : failure);
    } catch (RuntimeException e) {
      // The server already ended the call: nothing to cancel.
    }
  }

  private synchronized void release() {
    if (sendRoot != null) {
      sendRoot.close();
      sendRoot = null;
    }
    onClose.accept(this);
  }

  private void send(VectorSchemaRoot batch, byte[] metadata, AckListener current) {
    try {
      awaitReady(current);
      VectorUnloader unloader = new VectorUnloader(batch);
      try (ArrowRecordBatch records = unloader.getRecordBatch()) {
        new VectorLoader(sendRoot).load(records);
      }
      compressing.before(stream, sendRoot);
      if (metadata == null) {
        stream.putNext();
      } else {
        // The stream takes ownership of the metadata buffer.
        ArrowBuf buf = allocator.buffer(metadata.length);
        buf.writeBytes(metadata);
        stream.putNext(buf);
      }
    } catch (RuntimeException e) {
      // The call is over: its status decides whether the batch is resent or fails.
      streamFailed(current, current.serverError().orElseGet(() -> VerglasException.from(e)));
      throwIfFailed();
    } finally {
      // gRPC copied the buffers into its frames; release our references now.
      sendRoot.clear();
    }
  }

  /**
   * The current stream failed: re-open it later if the failure is transient and every
   * unacknowledged batch can be resent, else fail the writer.
   */
  private void streamFailed(AckListener failed, VerglasException error) {
    boolean retry;
    synchronized (state) {
      if (failed != null && failed != listener) {
        return; // an old stream's late news
      }
      if (failure != null || recovering) {
        return;
      }
      retry = retryable(error) && retriesInARow < writeRetries
          && pending.stream().allMatch(p -> p.copy != null);
      if (retry && pending.isEmpty()) {
        // Nothing to resend: open a new stream only when there is something to write.
        listener = null;
        idleBroken = true;
        return;
      }
      if (retry) {
        recovering = true;
        listener = null;
        retriesInARow++;
      }
    }
    if (!retry) {
      fail(error);
      return;
    }
    scheduleReopen();
  }

  /** Opens a new stream and sends every unacknowledged batch on it again, in order. */
  private void reopen() {
    synchronized (this) {
      AckListener next = new AckListener();
      List<Pending> resend;
      synchronized (state) {
        if (failure != null || sendRoot == null) {
          recovering = false;
          return;
        }
        listener = next;
        recovering = false;
        resend = new ArrayList<>(pending);
      }
      try {
        stream = flight.startPut(descriptor, sendRoot, next, options);
      } catch (RuntimeException e) {
        stream = null;
        streamFailed(next, VerglasException.from(e));
        return;
      }
      for (Pending entry : resend) {
        synchronized (state) {
          if (listener != next) {
            return; // this stream failed too; another re-open is on its way, or the writer failed
          }
        }
        try (ArrowStreamReader reader = new ArrowStreamReader(
            new ByteArrayInputStream(entry.copy), allocator)) {
          reader.loadNextBatch();
          send(reader.getVectorSchemaRoot(),
              BatchMetadataParser.toBytes(BatchMetadata.withKey(entry.key)), next);
        } catch (IOException e) {
          fail(new VerglasException(FlightStatusCode.INTERNAL, "Cannot resend batch to " + table
              + ": " + e.getMessage(), e));
          return;
        } catch (VerglasException e) {
          return; // the writer failed
        }
      }
    }
  }

  private void scheduleReopen() {
    long backoff = Math.min(MAX_BACKOFF.toNanos(),
        retryBackoff.toNanos() << Math.min(20, Math.max(0, retriesInARow - 1)));
    try {
      retryExecutor.execute(() -> {
        LockSupport.parkNanos(backoff);
        reopen();
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      fail(new VerglasException(FlightStatusCode.CANCELLED, "Writer to " + table
          + " was cancelled because its client closed"));
    }
  }

  /**
   * UNAVAILABLE and TIMED_OUT, and a stream reset by the transport (a server going down mid-call
   * resets its streams: INTERNAL "RST_STREAM ..."). Resending is safe because only keyed batches
   * are resent.
   */
  private static boolean retryable(VerglasException error) {
    return error.code() == FlightStatusCode.UNAVAILABLE
        || error.code() == FlightStatusCode.TIMED_OUT
        || (error.code() == FlightStatusCode.RESOURCE_EXHAUSTED && error.description() != null
            && error.description().startsWith(IngestProtocol.REFUSED_TOO_MANY_PUTS))
        || (error.code() == FlightStatusCode.INTERNAL && error.description() != null
            && error.description().startsWith("RST_STREAM"));
  }

  /** The batch serialized (uncompressed), kept until acknowledged so it can be resent. */
  private static byte[] copy(VectorSchemaRoot batch) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ArrowStreamWriter writer = new ArrowStreamWriter(batch, null, Channels.newChannel(bytes))) {
      writer.start();
      writer.writeBatch();
      writer.end();
    } catch (IOException e) {
      throw new VerglasException(FlightStatusCode.INTERNAL, "Cannot copy batch: " + e, e);
    }
    return bytes.toByteArray();
  }

  /**
   * Waits, without burning a core, while gRPC's flow control holds the stream (the server
   * applies backpressure); Flight's own {@code putNext} would busy-wait instead.
   */
  private void awaitReady(AckListener current) {
    while (!stream.isReady() && !current.isCancelled()) {
      LockSupport.parkNanos(READY_POLL_NANOS);
      if (Thread.currentThread().isInterrupted()) {
        throw new VerglasException(FlightStatusCode.CANCELLED,
            "Interrupted while the server applied backpressure to " + table);
      }
    }
  }

  private void acquireSlot() {
    try {
      inFlight.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new VerglasException(FlightStatusCode.CANCELLED,
          "Interrupted while waiting for acknowledgements from " + table, e);
    }
  }

  private void throwIfFailed() {
    VerglasException current = failure;
    if (current != null) {
      throw current;
    }
  }

  private void onAck(AckListener from, PutAck ack) {
    Pending entry;
    synchronized (state) {
      if (from != listener) {
        return;
      }
      entry = pending.poll();
      if (entry == null) {
        failLocked(new VerglasException(FlightStatusCode.INTERNAL,
            "Server acknowledged more batches than were sent to " + table + ": " + ack));
        return;
      }
      acks.add(ack);
      retriesInARow = 0;
    }
    inFlight.release();
    onAck.accept(ack);
    entry.future.complete(ack);
  }

  private void fail(VerglasException error) {
    synchronized (state) {
      failLocked(error);
    }
  }

  private void failLocked(VerglasException error) {
    List<Pending> failed = new ArrayList<>(pending);
    pending.clear();
    recovering = false;
    if (failure == null) {
      failure = error;
    }
    inFlight.release(failed.size());
    for (Pending entry : failed) {
      entry.future.completeExceptionally(failure);
    }
  }

  /** Receives one stream's acknowledgements; runs on gRPC threads. */
  private final class AckListener implements FlightClient.PutListener {
    private final CompletableFuture<Void> done = new CompletableFuture<>();

    @Override
    public void onNext(PutResult result) {
      ArrowBuf metadata = result.getApplicationMetadata();
      byte[] bytes = new byte[metadata == null ? 0 : (int) metadata.readableBytes()];
      if (bytes.length > 0) {
        metadata.getBytes(0, bytes);
      }
      try {
        onAck(this, PutAckParser.fromBytes(bytes));
      } catch (IllegalArgumentException e) {
        fail(new VerglasException(FlightStatusCode.INTERNAL,
            "Cannot read acknowledgement from the server: " + e.getMessage(), e));
      }
    }

    @Override
    public void onError(Throwable t) {
      done.completeExceptionally(t);
      streamFailed(this, VerglasException.from(t));
    }

    @Override
    public void onCompleted() {
      done.complete(null);
      synchronized (state) {
        if (this != listener || pending.isEmpty()) {
          return;
        }
      }
      streamFailed(this, new VerglasException(FlightStatusCode.INTERNAL,
          "Server completed the stream to " + table + " without acknowledging every batch"));
    }

    /**
     * Flight's {@code putNext} busy-waits until the call is ready or this says it is over;
     * without it, a write to a call the server already ended would spin forever.
     */
    @Override
    public boolean isCancelled() {
      return done.isDone();
    }

    /** Waits for the server to end the call after the client completed it. */
    void awaitEnd() {
      try {
        done.join();
      } catch (RuntimeException e) {
        throw VerglasException.from(e);
      }
    }

    /**
     * The status the server ended the call with, when sending failed because the call is over;
     * waits briefly, since the status may still be on its way.
     */
    Optional<VerglasException> serverError() {
      try {
        done.get(SERVER_ERROR_WAIT_SECONDS, TimeUnit.SECONDS);
        return Optional.empty();
      } catch (ExecutionException e) {
        return Optional.of(VerglasException.from(e.getCause()));
      } catch (TimeoutException e) {
        return Optional.empty();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }

    @Override
    public void getResult() {
      awaitEnd();
    }
  }
}
