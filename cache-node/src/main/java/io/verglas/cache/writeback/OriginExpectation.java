package io.verglas.cache.writeback;

import io.verglas.cache.origin.ETags;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.OriginException;
import io.verglas.cache.origin.WriteCondition;
import io.verglas.cache.writeback.journal.JournalRecord;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The states the origin may hold a key in when a buffered write of it is propagated, if no one
 * wrote the key to the origin around the cache since the write was acknowledged: what a HEAD of
 * the origin found while the write was staged, and the state each buffered change of the key
 * then pending leaves (its ETag, {@link #ABSENT} for a delete: one of them may reach the origin
 * first). Travels in the write's journal metadata ({@link #NAME}); a write staged without it
 * (the HEAD failed or had not answered {@value #HEAD_GRACE_MILLIS} ms after the fragments were
 * durable, or more than {@value #MAX_STATES} states) propagates unconditionally.
 *
 * <p>A buffered delete's expectation ({@link #ofDelete}) is made the same way, from a HEAD started
 * when the delete arrived. Without its answer it falls back on the key's pending changes: a
 * delete is buffered only after changes of its key, and without a write around the cache the
 * origin holds the key in a state one of them expected or leaves (none when one of them has no
 * expectation; such a fallback misses a write around the cache before the delete, which is then
 * held in conflict too).
 */
record OriginExpectation(List<String> states) {
  /** The journal metadata entry (never stored with the object). */
  static final String NAME = "x-verglas-origin-expect";
  /** The state of a missing key. */
  static final String ABSENT = "-";
  static final int MAX_STATES = 8;
  /** How long staging waits for the origin's HEAD once the body is staged (it runs beside the staging). */
  static final long HEAD_GRACE_MILLIS = 50;

  OriginExpectation {
    states = List.copyOf(states);
  }

  /** From the origin's state and the buffered changes' states; empty beyond {@value #MAX_STATES}. */
  static Optional<OriginExpectation> of(String origin, List<String> buffered) {
    Set<String> all = new LinkedHashSet<>();
    all.add(origin);
    all.addAll(buffered);
    return all.size() > MAX_STATES ? Optional.empty() : Optional.of(new OriginExpectation(List.copyOf(all)));
  }

  /**
   * The expectation of a write being staged: {@code origin} (from {@link #stateOf}, started when
   * the staging began) and the changes of the key pending now; empty if the HEAD failed or is late.
   */
  static Optional<OriginExpectation> of(CompletableFuture<String> origin, List<JournalRecord.Pending> buffered) {
    String state = awaited(origin);
    return state == null ? Optional.empty() : of(state, statesAfter(buffered));
  }

  /**
   * The expectation of a delete being journaled: as a write's, from the origin's {@code state}
   * ({@link #awaited}); without it (null), what the key's pending changes expected or leave
   * ({@link #ofDelete(List)}).
   */
  static Optional<OriginExpectation> ofDelete(String state, List<JournalRecord.Pending> buffered) {
    return state == null ? ofDelete(buffered) : of(state, statesAfter(buffered));
  }

  /** The HEAD's state, waited for at most {@value #HEAD_GRACE_MILLIS} ms; null when it failed or is late. */
  static String awaited(CompletableFuture<String> origin) {
    try {
      return origin.get(HEAD_GRACE_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException | TimeoutException e) {
      return null;
    }
  }

  private static List<String> statesAfter(List<JournalRecord.Pending> buffered) {
    return buffered.stream().map(OriginExpectation::stateAfter).toList();
  }

  /**
   * What the key's pending changes {@code buffered} expected and the states they leave: every
   * state the origin may hold the key in now unless it was written around the cache; empty when
   * there are none, one of them has no expectation, or there are more than {@value #MAX_STATES}.
   */
  static Optional<OriginExpectation> ofDelete(List<JournalRecord.Pending> buffered) {
    Set<String> all = new LinkedHashSet<>();
    for (JournalRecord.Pending change : buffered) {
      Optional<OriginExpectation> expected = in(change.metadata());
      if (expected.isEmpty()) {
        return Optional.empty();
      }
      all.addAll(expected.get().states());
      all.add(stateAfter(change));
    }
    return all.isEmpty() || all.size() > MAX_STATES ? Optional.empty()
        : Optional.of(new OriginExpectation(List.copyOf(all)));
  }

  /** The journal metadata of a change with this expectation, or none. */
  static Map<String, String> metadata(Optional<OriginExpectation> expected) {
    return expected.map(e -> Map.of(NAME, e.encoded())).orElse(Map.of());
  }

  /** The state a HEAD finds: the ETag, {@link #ABSENT} for a missing key, null when it failed. */
  static CompletableFuture<String> stateOf(CompletableFuture<ObjectMeta> head) {
    return head.handle((meta, e) -> meta != null ? meta.etag() : missing(e) ? ABSENT : null);
  }

  private static boolean missing(Throwable e) {
    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    return cause instanceof OriginException o && o.reason() == OriginException.Reason.NO_SUCH_KEY;
  }

  private static String stateAfter(JournalRecord.Pending change) {
    return change instanceof JournalRecord.Staged staged ? WriteBackMetadata.etag(staged) : ABSENT;
  }

  /** The expectation recorded in a write's journal metadata, if one was. */
  static Optional<OriginExpectation> in(Map<String, String> metadata) {
    String value = metadata.get(NAME);
    return value == null ? Optional.empty() : Optional.of(new OriginExpectation(Arrays.asList(value.split(","))));
  }

  String encoded() {
    return String.join(",", states);
  }

  boolean allows(String state) {
    return states.stream().anyMatch(s -> s.equals(state) || ETags.matches(s, state));
  }

  /** The condition that writes only over {@code state}. */
  static WriteCondition condition(String state) {
    return ABSENT.equals(state) ? WriteCondition.ifNoneMatchAny() : WriteCondition.ifMatch(state);
  }
}
