package io.verglas.cache.cluster.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An immutable membership view and the placement it implies: the owner of (bucket, key) is the
 * {@link MemberState#ACTIVE} member with the highest {@link Rendezvous} score, computed locally
 * with no directory and no extra hop. Nodes holding equal views compute equal owners. Members
 * are kept sorted by id, so a view's order never depends on the order nodes were learned in.
 */
public final class ClusterView {
  private static final ClusterView EMPTY = new ClusterView(0, List.of());

  private final long id;
  private final List<Member> members;
  private final Member[] owners;
  private final long[] ownerHashes;
  private final long ownedCapacity;

  private ClusterView(long id, List<Member> members) {
    this.id = id;
    List<Member> sorted = new ArrayList<>(members);
    sorted.sort(Comparator.comparing(Member::id));
    for (int i = 1; i < sorted.size(); i++) {
      if (sorted.get(i).id().equals(sorted.get(i - 1).id())) {
        throw new IllegalArgumentException("Cannot build a cluster view: member id "
            + sorted.get(i).id() + " appears twice");
      }
    }
    this.members = List.copyOf(sorted);
    this.owners = sorted.stream().filter(Member::owns).toArray(Member[]::new);
    this.ownerHashes = new long[owners.length];
    long capacity = 0;
    for (int i = 0; i < owners.length; i++) {
      ownerHashes[i] = Rendezvous.memberHash(owners[i].id());
      capacity += owners[i].capacityBytes();
    }
    this.ownedCapacity = capacity;
  }

  /** A view of these members; {@code id} is the membership's view number (for display). */
  public static ClusterView of(long id, List<Member> members) {
    return new ClusterView(id, members);
  }

  public static ClusterView empty() {
    return EMPTY;
  }

  public long id() {
    return id;
  }

  /** All members, sorted by id. */
  public List<Member> members() {
    return members;
  }

  /** This view without the member (the same view if it is absent). */
  public ClusterView without(String memberId) {
    return ClusterView.of(id, members.stream().filter(m -> !m.id().equals(memberId)).toList());
  }

  public Optional<Member> member(String memberId) {
    return members.stream().filter(m -> m.id().equals(memberId)).findFirst();
  }

  /** The owner of the object, empty when no member is active. */
  public Optional<Member> owner(String bucket, String key) {
    if (owners.length == 0) {
      return Optional.empty();
    }
    long keyHash = Rendezvous.keyHash(bucket, key);
    int best = 0;
    double bestScore = Rendezvous.score(keyHash, ownerHashes[0], owners[0].capacityBytes());
    for (int i = 1; i < owners.length; i++) {
      double score = Rendezvous.score(keyHash, ownerHashes[i], owners[i].capacityBytes());
      if (score > bestScore) { // ties keep the smaller id (members are sorted)
        best = i;
        bestScore = score;
      }
    }
    return Optional.of(owners[best]);
  }

  /**
   * The first {@code count} active members in the key's rendezvous order (highest score first;
   * fewer when fewer are active): the owner, then the member that owns the key if the owner
   * goes, and so on. Removing a member from the view removes it from every such order and
   * keeps the others' order, since a member's score does not depend on the other members.
   */
  public List<Member> ranked(String bucket, String key, int count) {
    long keyHash = Rendezvous.keyHash(bucket, key);
    Integer[] order = new Integer[owners.length];
    double[] scores = new double[owners.length];
    for (int i = 0; i < owners.length; i++) {
      order[i] = i;
      scores[i] = Rendezvous.score(keyHash, ownerHashes[i], owners[i].capacityBytes());
    }
    // by score, ties to the smaller id (members are sorted), as owner() decides them
    Arrays.sort(order, (a, b) -> scores[a] != scores[b]
        ? Double.compare(scores[b], scores[a]) : Integer.compare(a, b));
    List<Member> ranked = new ArrayList<>();
    for (int i = 0; i < Math.min(count, order.length); i++) {
      ranked.add(owners[order[i]]);
    }
    return ranked;
  }

  /**
   * Each member's expected share of keys: its capacity over the active members' total (0 for a
   * draining member). Exact in expectation for weighted rendezvous (see {@link Rendezvous}).
   */
  public Map<String, Double> shares() {
    Map<String, Double> shares = new LinkedHashMap<>();
    for (Member m : members) {
      shares.put(m.id(), m.owns() ? (double) m.capacityBytes() / ownedCapacity : 0.0);
    }
    return shares;
  }

  @Override
  public String toString() {
    return "ClusterView[" + id + ", " + members + "]";
  }
}
