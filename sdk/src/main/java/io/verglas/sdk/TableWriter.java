package io.verglas.sdk;

import io.verglas.protocol.BatchMetadata;
import io.verglas.protocol.BatchMetadataParser;
import io.verglas.protocol.PutAck;
import io.verglas.protocol.PutAckParser;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
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
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * One {@code DoPut} stream to one table.
 *
 * <p>Design: {@link #write} sends a batch and returns at once with a future of its
 * acknowledgement; the server acknowledges batches in order, each only after the WAL segment
 * holding it is durable, so {@link PutAck}s are matched to futures by arrival order. At most
 * {@code maxInFlightBatches} batches may await their ack; {@code write} blocks beyond that,
 * which bounds the memory gRPC buffers when the server applies backpressure.
 *
 * <p>The stream starts with the first batch's schema; later batches must have the same schema.
 * Each batch's data is copied onto the wire before {@code write} returns, so the caller may
 * reuse or close its root right away.
 *
 * <p>Idempotency keys travel in the batch's app metadata as {@code {"idempotencyKey":"..."}}
 * ({@link BatchMetadataParser}). A rejected batch ends the stream: the server first sends the
 * acks of the batches before it, then the error; later writes fail with the same
 * {@link VerglasException}.
 *
 * <p>Thread-safety: {@code write}, {@code flush} and {@code close} may be called from different
 * threads, but batches are sent in the order the {@code write} calls enter.
 */
public final class TableWriter implements AutoCloseable {
  private static final long SERVER_ERROR_WAIT_SECONDS = 5;
  private static final long READY_POLL_NANOS = 1_000_000;
  private final FlightClient flight;
  private final BufferAllocator allocator;
  private final TableIdentifier table;
  private final FlightDescriptor descriptor;
  private final CallOption[] options;
  private final Semaphore inFlight;
  private final Consumer<PutAck> onAck;
  private final Consumer<TableWriter> onClose;

  // Guarded by "this": the stream and the root whose buffers go onto the wire.
  private FlightClient.ClientStreamListener stream;
  private AckListener listener;
  private VectorSchemaRoot sendRoot;
  private boolean closed;

  // Guarded by "acks": futures awaiting an ack in send order, and the acks received.
  private final ArrayDeque<CompletableFuture<PutAck>> awaiting = new ArrayDeque<>();
  private CompletableFuture<PutAck> lastSent = CompletableFuture.completedFuture(null);
  private final List<PutAck> acks = new ArrayList<>();
  private volatile VerglasException failure;

  TableWriter(FlightClient flight, BufferAllocator allocator, TableIdentifier table,
      FlightDescriptor descriptor, CallOption[] options, int maxInFlightBatches,
      Consumer<PutAck> onAck, Consumer<TableWriter> onClose) {
    this.flight = flight;
    this.allocator = allocator;
    this.table = table;
    this.descriptor = descriptor;
    this.options = options;
    this.inFlight = new Semaphore(maxInFlightBatches);
    this.onAck = onAck;
    this.onClose = onClose;
  }

  public TableIdentifier table() {
    return table;
  }

  /** Sends one batch without an idempotency key. */
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
    byte[] metadata = idempotencyKey == null ? null
        : BatchMetadataParser.toBytes(BatchMetadata.withKey(idempotencyKey));
    throwIfFailed();
    acquireSlot();
    boolean handedOff = false;
    try {
      synchronized (this) {
        if (closed) {
          throw new IllegalStateException("Cannot write batch: writer for " + table + " is closed");
        }
        throwIfFailed();
        if (stream == null) {
          start(batch);
        } else if (!sendRoot.getSchema().equals(batch.getSchema())) {
          throw new IllegalArgumentException("Cannot write batch to " + table
              + ": its schema differs from the first batch of this writer: " + batch.getSchema()
              + " vs " + sendRoot.getSchema());
        }
        CompletableFuture<PutAck> future = new CompletableFuture<>();
        synchronized (acks) {
          awaiting.add(future);
          lastSent = future;
        }
        handedOff = true;
        send(batch, metadata, future);
        return future;
      }
    } finally {
      if (!handedOff) {
        inFlight.release();
      }
    }
  }

  private void start(VectorSchemaRoot first) {
    sendRoot = VectorSchemaRoot.create(first.getSchema(), allocator);
    listener = new AckListener();
    try {
      stream = flight.startPut(descriptor, sendRoot, listener, options);
    } catch (RuntimeException e) {
      sendRoot.close();
      sendRoot = null;
      throw VerglasException.from(e);
    }
  }

  /** Waits until every batch written so far is acknowledged; throws the stream's failure. */
  public void flush() {
    CompletableFuture<PutAck> last;
    synchronized (acks) {
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
    synchronized (acks) {
      return List.copyOf(acks);
    }
  }

  /**
   * Ends the stream and waits until the server acknowledged every batch and completed the
   * call. Idempotent; throws the stream's failure, if any, on the first call.
   */
  @Override
  public void close() {
    FlightClient.ClientStreamListener toComplete;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      toComplete = stream;
    }
    try {
      if (toComplete != null) {
        if (failure == null) {
          toComplete.completed();
        } else {
          cancelCall(toComplete);
        }
        awaitEnd(toComplete);
      }
    } finally {
      release();
    }
    VerglasException current = failure;
    if (current != null) {
      // A new instance: try-with-resources must not add an exception to itself as suppressed.
      throw new VerglasException(current.code(), current.description(), current);
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

  private void cancelCall(FlightClient.ClientStreamListener call) {
    try {
      call.error(failure);
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

  private void awaitEnd(FlightClient.ClientStreamListener toComplete) {
    try {
      toComplete.getResult();
      flush();
    } catch (RuntimeException e) {
      fail(VerglasException.from(e));
    }
  }

  private void send(VectorSchemaRoot batch, byte[] metadata, CompletableFuture<PutAck> future) {
    try {
      awaitReady();
      VectorUnloader unloader = new VectorUnloader(batch);
      try (ArrowRecordBatch records = unloader.getRecordBatch()) {
        new VectorLoader(sendRoot).load(records);
      }
      if (metadata == null) {
        stream.putNext();
      } else {
        // The stream takes ownership of the metadata buffer.
        ArrowBuf buf = allocator.buffer(metadata.length);
        buf.writeBytes(metadata);
        stream.putNext(buf);
      }
    } catch (RuntimeException e) {
      fail(listener.serverError().orElseGet(() -> VerglasException.from(e)));
      throw failure;
    } finally {
      // gRPC copied the buffers into its frames; release our references now.
      sendRoot.clear();
    }
  }

  /**
   * Waits, without burning a core, while gRPC's flow control holds the stream (the server
   * applies backpressure); Flight's own {@code putNext} would busy-wait instead.
   */
  private void awaitReady() {
    while (!stream.isReady() && !listener.isCancelled()) {
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

  private void onAck(PutAck ack) {
    CompletableFuture<PutAck> future;
    synchronized (acks) {
      future = awaiting.poll();
      if (future == null) {
        fail(new VerglasException(FlightStatusCode.INTERNAL,
            "Server acknowledged more batches than were sent to " + table + ": " + ack));
        return;
      }
      acks.add(ack);
    }
    inFlight.release();
    onAck.accept(ack);
    future.complete(ack);
  }

  private void fail(VerglasException error) {
    List<CompletableFuture<PutAck>> failed;
    synchronized (acks) {
      if (failure == null) {
        failure = error;
      }
      failed = new ArrayList<>(awaiting);
      awaiting.clear();
    }
    inFlight.release(failed.size());
    for (CompletableFuture<PutAck> future : failed) {
      future.completeExceptionally(failure);
    }
  }

  /** Receives the server's acknowledgements; runs on gRPC threads. */
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
        onAck(PutAckParser.fromBytes(bytes));
      } catch (IllegalArgumentException e) {
        fail(new VerglasException(FlightStatusCode.INTERNAL,
            "Cannot read acknowledgement from the server: " + e.getMessage(), e));
      }
    }

    @Override
    public void onError(Throwable t) {
      fail(VerglasException.from(t));
      done.completeExceptionally(t);
    }

    @Override
    public void onCompleted() {
      synchronized (acks) {
        if (awaiting.isEmpty()) {
          done.complete(null);
          return;
        }
      }
      fail(new VerglasException(FlightStatusCode.INTERNAL,
          "Server completed the stream to " + table + " without acknowledging every batch"));
      done.complete(null);
    }

    /**
     * Flight's {@code putNext} busy-waits until the call is ready or this says it is over;
     * without it, a write to a call the server already ended would spin forever.
     */
    @Override
    public boolean isCancelled() {
      return done.isDone();
    }

    /**
     * The status the server ended the call with, when sending failed because the call is over;
     * waits briefly, since the status may still be on its way.
     */
    java.util.Optional<VerglasException> serverError() {
      try {
        done.get(SERVER_ERROR_WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
        return java.util.Optional.empty();
      } catch (java.util.concurrent.ExecutionException e) {
        return java.util.Optional.of(VerglasException.from(e.getCause()));
      } catch (java.util.concurrent.TimeoutException e) {
        return java.util.Optional.empty();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return java.util.Optional.empty();
      }
    }

    @Override
    public void getResult() {
      try {
        done.join();
      } catch (RuntimeException e) {
        throw VerglasException.from(e);
      }
    }
  }
}
