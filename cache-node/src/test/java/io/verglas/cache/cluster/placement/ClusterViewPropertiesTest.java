package io.verglas.cache.cluster.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** Placement properties: determinism, minimal movement, capacity-proportional shares. */
class ClusterViewPropertiesTest {
  private static final int KEYS = 4000;

  @Property(tries = 50)
  void placementIsDeterministicWhateverTheOrderMembersAreLearnedIn(@ForAll("members") List<Member> members,
      @ForAll long seed) {
    List<Member> shuffled = new ArrayList<>(members);
    Collections.shuffle(shuffled, new java.util.Random(seed));
    ClusterView a = ClusterView.of(1, members);
    ClusterView b = ClusterView.of(2, shuffled);
    for (int i = 0; i < 500; i++) {
      assertThat(b.owner("bucket", "key-" + i)).isEqualTo(a.owner("bucket", "key-" + i));
    }
  }

  @Property(tries = 30)
  void addingAMemberMovesOnlyTheKeysItWins(@ForAll("members") List<Member> members) {
    Member joiner = new Member("joiner", "127.0.0.1", 1, 1L << 30, MemberState.ACTIVE);
    ClusterView before = ClusterView.of(1, members);
    List<Member> grown = new ArrayList<>(members);
    grown.add(joiner);
    ClusterView after = ClusterView.of(2, grown);
    int moved = 0;
    for (int i = 0; i < KEYS; i++) {
      String key = "k/" + i;
      Member was = before.owner("b", key).orElseThrow();
      Member now = after.owner("b", key).orElseThrow();
      if (!was.equals(now)) {
        assertThat(now).isEqualTo(joiner);
        moved++;
      }
    }
    double expected = after.shares().get("joiner");
    assertThat((double) moved / KEYS).isCloseTo(expected, org.assertj.core.data.Offset.offset(0.05));
  }

  @Property(tries = 30)
  void removingOrDrainingAMemberMovesOnlyItsKeys(@ForAll("members") List<Member> members,
      @ForAll @IntRange(min = 0, max = 5) int which, @ForAll boolean drain) {
    Member leaver = members.get(which % members.size());
    List<Member> shrunk = new ArrayList<>(members);
    shrunk.remove(leaver);
    if (drain) {
      shrunk.add(leaver.withState(MemberState.DRAINING));
    }
    ClusterView before = ClusterView.of(1, members);
    ClusterView after = ClusterView.of(2, shrunk);
    for (int i = 0; i < KEYS; i++) {
      Member was = before.owner("b", "k/" + i).orElseThrow();
      Member now = after.owner("b", "k/" + i).orElseThrow();
      if (!was.id().equals(leaver.id())) {
        assertThat(now).isEqualTo(was);
      } else {
        assertThat(now.id()).isNotEqualTo(leaver.id());
      }
    }
  }

  @Property(tries = 20)
  void sharesFollowCapacity(@ForAll("members") List<Member> members) {
    ClusterView view = ClusterView.of(1, members);
    Map<String, Integer> owned = new HashMap<>();
    int keys = 20_000;
    for (int i = 0; i < keys; i++) {
      owned.merge(view.owner("bucket", "data/part-" + i + ".parquet").orElseThrow().id(), 1, Integer::sum);
    }
    view.shares().forEach((id, share) -> assertThat((double) owned.getOrDefault(id, 0) / keys)
        .as("share of %s", id).isCloseTo(share, org.assertj.core.data.Offset.offset(0.025)));
  }

  @Test
  void aViewWithoutActiveMembersOwnsNothing() {
    Member draining = new Member("a", "127.0.0.1", 1, 10, MemberState.DRAINING);
    assertThat(ClusterView.of(1, List.of(draining)).owner("b", "k")).isEmpty();
    assertThat(ClusterView.empty().owner("b", "k")).isEmpty();
  }

  @Test
  void duplicateIdsAreRefused() {
    Member a = new Member("a", "127.0.0.1", 1, 10, MemberState.ACTIVE);
    assertThatThrownBy(() -> ClusterView.of(1, List.of(a, a)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("appears twice");
  }

  /** Two to six active members with distinct ids and capacities from 1 to 8 GiB. */
  @Provide
  Arbitrary<List<Member>> members() {
    Arbitrary<Member> member = Combinators.combine(
            Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(12),
            Arbitraries.integers().between(1, 8))
        .as((id, gib) -> new Member(id, "127.0.0.1", 7000, gib * (1L << 30), MemberState.ACTIVE));
    return member.list().ofMinSize(2).ofMaxSize(6).uniqueElements(Member::id);
  }
}
