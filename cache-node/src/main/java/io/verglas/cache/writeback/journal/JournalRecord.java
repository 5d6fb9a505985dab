package io.verglas.cache.writeback.journal;

import io.verglas.cache.writeback.code.Geometry;
import io.verglas.cache.writeback.fragment.ObjectIdentity;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/** One record of a {@link WriteJournal}. */
public sealed interface JournalRecord permits JournalRecord.Pending, JournalRecord.Clean {
  ObjectIdentity identity();

  /**
   * An acknowledged change of a key not yet applied to the origin: a staged PUT or a DELETE
   * ordered after one. {@code stagedAtMillis} is its acknowledgement stamp: the coordinator's
   * clock when it was journaled, raised where needed so that it orders after the coordinator's
   * earlier changes and after every change of the key the coordinator knew of then.
   */
  sealed interface Pending extends JournalRecord permits Staged, Deleted {
    /**
     * The order of acknowledged changes of one key, the same on every node: by stamp, ties (two
     * coordinators, one millisecond, neither knowing the other's change) broken by write id. The
     * greatest is the key's latest change: what reads return and what the origin must end with.
     */
    Comparator<Pending> ACK_ORDER = Comparator.comparingLong(Pending::stagedAtMillis)
        .thenComparing(p -> p.identity().writeId());

    long stagedAtMillis();

    /**
     * What travels with the change, sorted by name: a write's object metadata, and for either
     * the journal's own entries (what the origin may hold when it is applied).
     */
    Map<String, String> metadata();

    /** Whether this change orders after {@code other} in {@link #ACK_ORDER}. */
    default boolean isLaterThan(Pending other) {
      return ACK_ORDER.compare(this, other) > 0;
    }
  }

  /**
   * A write made durable across nodes and about to be acknowledged: what is needed to serve and
   * to propagate it without the client: its identity, length, the object's metadata (content
   * type, user metadata, sorted by name), the geometry and where each durable fragment is.
   * {@code stagedAtMillis} is the coordinator's clock when staged (for the oldest dirty age).
   */
  record Staged(ObjectIdentity identity, long bodyLength, Map<String, String> metadata, Geometry geometry,
      List<Placement> placements, long stagedAtMillis) implements Pending {
    public Staged {
      Objects.requireNonNull(identity, "identity");
      Objects.requireNonNull(geometry, "geometry");
      metadata = Map.copyOf(new TreeMap<>(metadata));
      placements = List.copyOf(placements);
      if (bodyLength < 0) {
        throw new IllegalArgumentException("Invalid body length: " + bodyLength);
      }
      checkPlacements(placements, geometry);
    }

    /** This record with another acknowledgement stamp. */
    public Staged stampedAt(long millis) {
      return new Staged(identity, bodyLength, metadata, geometry, placements, millis);
    }

    private static void checkPlacements(List<Placement> placements, Geometry geometry) {
      Set<Integer> fragments = new HashSet<>();
      Set<String> nodes = new HashSet<>();
      for (Placement p : placements) {
        if (p.fragment() >= geometry.totalFragments() || !fragments.add(p.fragment())) {
          throw new IllegalArgumentException("Invalid placements " + placements + ": fragment " + p.fragment()
              + " out of range or twice for " + geometry);
        }
        if (!nodes.add(p.nodeId())) {
          throw new IllegalArgumentException("Invalid placements " + placements + ": node " + p.nodeId()
              + " holds two fragments");
        }
      }
    }
  }

  /**
   * A DELETE of a key acknowledged while an earlier write of the key was still buffered: it is
   * applied to the origin after that write, in journal order. Its identity's write id is its own;
   * its metadata holds only the journal's own entries (none in records journaled before they were).
   */
  record Deleted(ObjectIdentity identity, long stagedAtMillis, Map<String, String> metadata) implements Pending {
    public Deleted {
      Objects.requireNonNull(identity, "identity");
      metadata = Map.copyOf(new TreeMap<>(metadata));
    }

    /** A delete with no metadata. */
    public Deleted(ObjectIdentity identity, long stagedAtMillis) {
      this(identity, stagedAtMillis, Map.of());
    }
  }

  /** The write (or delete) reached the origin: its fragments may be released. */
  record Clean(ObjectIdentity identity) implements JournalRecord {
    public Clean {
      Objects.requireNonNull(identity, "identity");
    }
  }
}
