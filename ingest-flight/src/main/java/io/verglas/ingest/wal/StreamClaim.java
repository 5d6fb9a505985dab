package io.verglas.ingest.wal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Ownership of an ingest stream: the most recently started process owns it.
 *
 * <p>Design: a process claims the stream by creating the next epoch object
 * ({@code .../epochs/<n+1>}) with {@code If-None-Match: *}; two processes claiming at once
 * cannot both create the same epoch, and the loser simply claims the one after. A process owns
 * the stream until an object for a higher epoch exists; since claims are created in order,
 * checking for {@code epoch + 1} is enough. The WAL writer checks after every segment PUT and
 * before acknowledging it ({@link #superseded()}), so once a newer process has claimed the
 * stream, the older one acknowledges nothing more, and everything it acknowledged was durable
 * before the newer one listed the stream to find where to continue. Epoch objects are never
 * deleted (one small object per process start), so the check stays correct for any old
 * process. Collisions on segment keys are therefore not a fencing signal: whoever finds a
 * foreign segment under its next key asks the claim, then moves past the segment.
 */
public final class StreamClaim {
  static final int FORMAT_VERSION = 1;
  private static final int MAX_ATTEMPTS = 16;
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** What a claim object says: who started when, with how many lanes. */
  public record Claim(long epoch, String owner, long startedAtMillis, int lanes) {}

  private final SegmentStore store;
  private final IngestLayout layout;
  private final String streamId;
  private final String owner;
  private final LongSupplier wallMillis;
  private long epoch = -1;
  private Claim previous;
  private volatile boolean superseded;
  // Coalesced checks, ordered by tickets rather than by a clock (see supersededSince).
  private final java.util.concurrent.atomic.AtomicLong tickets =
      new java.util.concurrent.atomic.AtomicLong();
  private final Object checks = new Object();
  private boolean checking;
  private long lastCheckTicket = -1;

  public StreamClaim(SegmentStore store, IngestLayout layout, String streamId, String owner,
      LongSupplier wallMillis) {
    this.store = Objects.requireNonNull(store, "store");
    this.layout = Objects.requireNonNull(layout, "layout");
    this.streamId = IngestLayout.checkStreamId(streamId);
    this.owner = Objects.requireNonNull(owner, "owner");
    this.wallMillis = wallMillis;
  }

  /**
   * Claims the stream: creates the epoch after the highest existing one. Safe to call again
   * after it failed (a claim that landed although its PUT failed is simply passed over).
   *
   * @return the epoch claimed
   */
  public synchronized long acquire(int lanes) {
    if (epoch >= 0) {
      return epoch;
    }
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      long highest = 0;
      String highestKey = null;
      for (String key : store.list(layout.claimPrefix(streamId))) {
        long parsed = layout.parseClaim(streamId, key);
        if (parsed > highest) {
          highest = parsed;
          highestKey = key;
        }
      }
      Claim mine = new Claim(highest + 1, owner, wallMillis.getAsLong(), lanes);
      String key = layout.claimKey(streamId, mine.epoch());
      byte[] bytes = toBytes(mine);
      // A claim refused as existing may be our own: a retried PUT whose first attempt landed.
      if (store.putIfAbsent(key, bytes)
          || store.get(key).map(existing -> java.util.Arrays.equals(existing, bytes))
              .orElse(false)) {
        epoch = mine.epoch();
        previous = highestKey == null ? null
            : store.get(highestKey).flatMap(StreamClaim::parseOrEmpty).orElse(null);
        return epoch;
      }
    }
    throw new SegmentStoreException("Cannot claim stream " + streamId + ": " + MAX_ATTEMPTS
        + " processes claimed it at the same moment", null, true);
  }

  public synchronized long epoch() {
    return epoch;
  }

  /** The claim this one replaced (the previous owner), if any could be read. */
  public synchronized Optional<Claim> previous() {
    return Optional.ofNullable(previous);
  }

  /**
   * Whether a newer process claimed the stream, asking the store now. Sticky: once true, always
   * true. Call it after the write it guards.
   */
  public boolean superseded() {
    return supersededSince(ticket());
  }

  /** A ticket to take right after a write completes, for {@link #supersededSince}. */
  public long ticket() {
    return tickets.incrementAndGet();
  }

  /**
   * Whether a newer process claimed the stream, by a check that started after {@code ticket}
   * was taken. Lanes finishing their PUTs at about the same time share one check: a check in
   * flight that started after a lane's ticket answers for that lane too, so a stream asks the
   * store at most about once per round trip however many lanes it has.
   */
  public boolean supersededSince(long ticket) {
    while (true) {
      long started;
      synchronized (checks) {
        if (superseded) {
          return true;
        }
        if (lastCheckTicket > ticket) {
          return false;
        }
        if (checking) {
          try {
            checks.wait();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SegmentStoreException("Interrupted while checking the claim of stream "
                + streamId, e, false);
          }
          continue;
        }
        checking = true;
        started = tickets.incrementAndGet();
      }
      boolean found = false;
      boolean answered = false;
      try {
        found = store.exists(layout.claimKey(streamId, claimedEpoch() + 1));
        answered = true;
      } finally {
        synchronized (checks) {
          checking = false;
          if (found) {
            superseded = true;
          } else if (answered) {
            lastCheckTicket = Math.max(lastCheckTicket, started);
          }
          checks.notifyAll();
        }
      }
    }
  }

  private synchronized long claimedEpoch() {
    if (epoch < 0) {
      throw new IllegalStateException("Cannot check claim of stream " + streamId
          + ": not claimed");
    }
    return epoch;
  }

  static byte[] toBytes(Claim claim) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("version", FORMAT_VERSION);
    node.put("epoch", claim.epoch());
    node.put("owner", claim.owner());
    node.put("startedAtMillis", claim.startedAtMillis());
    node.put("lanes", claim.lanes());
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }

  static Claim fromBytes(byte[] bytes) {
    try {
      JsonNode node = MAPPER.readTree(bytes);
      int version = node.path("version").asInt(-1);
      if (version != FORMAT_VERSION) {
        throw new IllegalArgumentException("Cannot parse stream claim: unknown version " + version);
      }
      return new Claim(node.path("epoch").asLong(), node.path("owner").asText(),
          node.path("startedAtMillis").asLong(), node.path("lanes").asInt(1));
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot parse stream claim: " + e.getMessage(), e);
    }
  }

  private static Optional<Claim> parseOrEmpty(byte[] bytes) {
    try {
      return Optional.of(fromBytes(bytes));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
