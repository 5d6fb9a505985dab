package io.verglas.cache.writeback.peer;

import io.verglas.cache.writeback.fragment.FragmentFormat;
import io.verglas.cache.writeback.fragment.FragmentHeader;
import io.verglas.cache.writeback.fragment.FragmentOutput;
import io.verglas.cache.writeback.fragment.FragmentReader;
import io.verglas.cache.writeback.fragment.FragmentStore;
import io.verglas.cache.writeback.fragment.ObjectIdentity;
import io.verglas.cache.writeback.journal.JournalCodec;
import io.verglas.cache.writeback.journal.JournalRecord;
import io.verglas.cache.writeback.journal.ReplicaJournals;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.zip.CRC32C;

/**
 * Serves the {@link FragmentProtocol} for this node: fragments other coordinators place here
 * go to this node's {@link FragmentStore}, their journal records to its {@link ReplicaJournals}.
 *
 * <p>Design. Every request runs on {@code executor} (its own threads, so that two nodes staging
 * to each other never wait on each other's staging threads); the requests of one fragment
 * being written are chained, so they apply in arrival order. A fragment's session lives as long
 * as the peer connection: {@link #disconnected} abandons what it left uncommitted (temporary
 * file and reservation). A COMMIT is answered once the store committed (file and directory
 * fsynced), a RECORD once the replica journal's append was fsynced. Memory: the cells in
 * flight, at most a few per session (the sender waits for each one's answer before the next
 * but one).
 */
public final class FragmentService {
  private record SessionKey(long connection, long session) {}

  private static final class Session {
    final FragmentOutput output;
    CompletableFuture<byte[]> tail = CompletableFuture.completedFuture(new byte[0]);

    Session(FragmentOutput output) {
      this.output = output;
    }
  }

  private final FragmentStore store;
  private final ReplicaJournals replicas;
  private final Executor executor;
  private final Function<String, List<JournalRecord.Pending>> own;
  private final Map<SessionKey, Session> sessions = new ConcurrentHashMap<>();

  /**
   * @param own this node's own pending records, for the peer of the given id reconciling its
   *     copies; it throws while this node is recovering its journal and has not asked that peer
   */
  public FragmentService(FragmentStore store, ReplicaJournals replicas, Executor executor,
      Function<String, List<JournalRecord.Pending>> own) {
    this.own = Objects.requireNonNull(own, "own");
    this.store = Objects.requireNonNull(store, "store");
    this.replicas = Objects.requireNonNull(replicas, "replicas");
    this.executor = Objects.requireNonNull(executor, "executor");
  }

  /** The answer to one request from peer connection {@code connection}. */
  public CompletableFuture<byte[]> serve(long connection, byte[] request) {
    ByteBuffer in = ByteBuffer.wrap(request);
    byte op = in.get();
    return switch (op) {
      case FragmentProtocol.CREATE -> async(() -> create(connection, in.getLong(), FragmentProtocol.rest(in)));
      case FragmentProtocol.CELL, FragmentProtocol.COMMIT, FragmentProtocol.ABORT ->
          inSession(new SessionKey(connection, in.getLong()), op, in);
      case FragmentProtocol.READ, FragmentProtocol.RELEASE -> fragment(op, in);
      case FragmentProtocol.RECORD, FragmentProtocol.RECORDS -> record(op, in);
      case FragmentProtocol.PENDING -> {
        String requester = FragmentProtocol.string(in);
        yield async(() -> FragmentProtocol.records(own.apply(requester)));
      }
      default -> CompletableFuture.failedFuture(new IllegalArgumentException(
          "Cannot serve write-back operation " + op + ": unknown"));
    };
  }

  private byte[] create(long connection, long session, byte[] header) throws IOException {
    FragmentHeader parsed = FragmentFormat.decodeHeader(header);
    FragmentOutput output = store.create(parsed);
    if (sessions.putIfAbsent(new SessionKey(connection, session), new Session(output)) != null) {
      output.close();
      throw new IllegalStateException("Cannot create fragment " + parsed.index() + " of " + parsed.identity()
          + ": session " + session + " is in use");
    }
    return new byte[0];
  }

  private CompletableFuture<byte[]> inSession(SessionKey key, byte op, ByteBuffer in) {
    Session session = op == FragmentProtocol.CELL ? sessions.get(key) : sessions.remove(key);
    if (session == null) {
      return CompletableFuture.failedFuture(new IllegalStateException("Cannot write a fragment in session "
          + key.session() + ": no such session on this connection (abandoned or finished)"));
    }
    byte[] cell = FragmentProtocol.rest(in);
    synchronized (session) {
      session.tail = session.tail.thenApplyAsync(previous -> call(() -> {
        switch (op) {
          case FragmentProtocol.CELL -> session.output.writeCell(ByteBuffer.wrap(cell));
          case FragmentProtocol.COMMIT -> session.output.commit();
          default -> session.output.close();
        }
        return new byte[0];
      }), executor);
      CompletableFuture<byte[]> result = session.tail;
      if (op == FragmentProtocol.CELL) {
        result.whenComplete((v, e) -> failed(key, session, e));
      }
      return result;
    }
  }

  /** A cell that failed ends its session: the fragment is abandoned. */
  private void failed(SessionKey key, Session session, Throwable error) {
    if (error != null && sessions.remove(key, session)) {
      closeQuietly(session.output);
    }
  }

  private CompletableFuture<byte[]> fragment(byte op, ByteBuffer in) {
    int index = in.get() & 0xFF;
    long stripe = in.getLong();
    ObjectIdentity id = FragmentProtocol.identity(in);
    if (op == FragmentProtocol.RELEASE) {
      return async(() -> new byte[] {(byte) (store.release(id, index) ? 1 : 0)});
    }
    return async(() -> read(id, index, stripe));
  }

  private byte[] read(ObjectIdentity id, int index, long stripe) throws IOException {
    try (FragmentReader reader = store.open(id, index)) {
      if (stripe == FragmentProtocol.HEADER) {
        return FragmentFormat.encodeHeader(reader.header());
      }
      FragmentHeader header = reader.header();
      int length = header.geometry().cellLength(header.bodyLength(), stripe);
      ByteBuffer answer = ByteBuffer.allocate(length + FragmentFormat.CELL_CRC_BYTES);
      reader.readCell(stripe, answer.slice(0, length));
      CRC32C crc = new CRC32C();
      crc.update(answer.array(), 0, length);
      return answer.putInt(length, (int) crc.getValue()).array();
    }
  }

  private CompletableFuture<byte[]> record(byte op, ByteBuffer in) {
    String coordinator = FragmentProtocol.string(in);
    if (op == FragmentProtocol.RECORD) {
      JournalRecord record = JournalCodec.parse(FragmentProtocol.rest(in));
      return async(() -> {
        replicas.append(coordinator, record);
        return new byte[0];
      });
    }
    return async(() -> FragmentProtocol.records(replicas.pending(coordinator)));
  }

  /** Abandons the fragments connection {@code connection} left uncommitted. */
  public void disconnected(long connection) {
    sessions.entrySet().removeIf(e -> {
      if (e.getKey().connection() != connection) {
        return false;
      }
      Session session = e.getValue();
      synchronized (session) {
        session.tail = session.tail.handleAsync((v, error) -> {
          closeQuietly(session.output);
          return v;
        }, executor);
      }
      return true;
    });
  }

  private CompletableFuture<byte[]> async(Callable<byte[]> work) {
    return CompletableFuture.supplyAsync(() -> call(work), executor);
  }

  private static byte[] call(Callable<byte[]> work) {
    try {
      return work.call();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new CompletionException(e);
    }
  }

  private static void closeQuietly(FragmentOutput output) {
    try {
      output.close();
    } catch (IOException e) {
      // the store deletes leftover temporary files when it opens again
    }
  }
}
