package io.verglas.ingest.wal;

import io.verglas.protocol.PutAck;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The idempotency keys a stream has seen, per table: keys of batches in flight (their futures)
 * and of durable batches (their acks) for {@code window}, at most {@code maxKeys} of them.
 *
 * <p>Design: durable keys sit in a map ordered by when they became durable, so expiry and the
 * size bound both drop the oldest first, in amortized constant time per key. A key in flight
 * is never dropped: a retry arriving while its original is still being written joins the
 * original's future instead of writing the batch again. A failed batch's key is forgotten, so
 * its retry is written. Keys are scoped by table uuid: the same key may name different batches
 * of different tables.
 */
final class IdempotencyIndex {
  private record Key(String tableUuid, String key) {}

  private record Durable(PutAck ack, long atMillis) {}

  private final long windowMillis;
  private final int maxKeys;
  private final LongSupplier wallMillis;
  private final Map<Key, CompletableFuture<PutAck>> inFlight = new HashMap<>();
  private final LinkedHashMap<Key, Durable> durable = new LinkedHashMap<>();

  IdempotencyIndex(Duration window, int maxKeys, LongSupplier wallMillis) {
    this.windowMillis = window.toMillis();
    this.maxKeys = maxKeys;
    this.wallMillis = wallMillis;
  }

  /** The earlier batch with this key: a completed future (durable) or the one in flight. */
  synchronized CompletableFuture<PutAck> find(String tableUuid, String key) {
    Key k = new Key(tableUuid, key);
    CompletableFuture<PutAck> pending = inFlight.get(k);
    if (pending != null) {
      return pending;
    }
    expire();
    Durable done = durable.get(k);
    return done == null ? null : CompletableFuture.completedFuture(done.ack());
  }

  synchronized void inFlight(String tableUuid, String key, CompletableFuture<PutAck> future) {
    inFlight.put(new Key(tableUuid, key), future);
  }

  /** The batch is durable: remember its ack for the window. */
  synchronized void durable(String tableUuid, String key, PutAck ack) {
    Key k = new Key(tableUuid, key);
    inFlight.remove(k);
    remember(k, ack, wallMillis.getAsLong());
  }

  /** The batch failed: forget the key (if it still names this future) so a retry is written. */
  synchronized void failed(String tableUuid, String key, CompletableFuture<PutAck> future) {
    inFlight.remove(new Key(tableUuid, key), future);
  }

  /** Restores a key found in the WAL or a journal at start-up. */
  synchronized void restore(String tableUuid, String key, PutAck ack, long atMillis) {
    if (wallMillis.getAsLong() - atMillis < windowMillis) {
      remember(new Key(tableUuid, key), ack, atMillis);
    }
  }

  synchronized int size() {
    return inFlight.size() + durable.size();
  }

  private void remember(Key key, PutAck ack, long atMillis) {
    durable.remove(key);
    durable.put(key, new Durable(ack, atMillis));
    expire();
  }

  private void expire() {
    long cutoff = wallMillis.getAsLong() - windowMillis;
    Iterator<Durable> oldest = durable.values().iterator();
    while (oldest.hasNext()) {
      Durable next = oldest.next();
      if (next.atMillis() > cutoff && durable.size() <= maxKeys) {
        return;
      }
      oldest.remove();
    }
  }
}
