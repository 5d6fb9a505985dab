package io.verglas.cache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.writeback.code.Geometry;
import io.verglas.cache.writeback.fragment.ObjectIdentity;
import io.verglas.cache.writeback.journal.JournalRecord;
import io.verglas.cache.writeback.journal.Placement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The bounds of the fragments held to be released again: tries per write, writes held, and what a try answers. */
class UnreleasedFragmentsTest {
  private static final List<Placement> PLACEMENTS =
      List.of(new Placement(0, "node-0"), new Placement(1, "node-1"), new Placement(2, "node-2"));

  @Test
  void aTryReleasesWhatItCanAndKeepsOnlyThePlacementsLeft() {
    UnreleasedFragments unreleased = new UnreleasedFragments();
    unreleased.add(write("a"), PLACEMENTS.subList(1, 3));
    unreleased.add(write("b"), List.of());
    List<List<Placement>> tried = new ArrayList<>();

    assertThat(unreleased.retry((r, left) -> {
      tried.add(left);
      return left.subList(1, left.size());
    })).isOne();
    assertThat(unreleased.retry((r, left) -> {
      tried.add(left);
      return List.of();
    })).isZero();
    assertThat(tried).containsExactly(PLACEMENTS.subList(1, 3), PLACEMENTS.subList(2, 3));
  }

  @Test
  void aWriteIsGivenUpToTheOrphanSweepAfterItsTriesAndTheOldestBeyondTheBound() {
    UnreleasedFragments unreleased = new UnreleasedFragments();
    for (int i = 0; i <= UnreleasedFragments.MAX_WRITES; i++) {
      unreleased.add(write("k" + i), PLACEMENTS);
    }
    assertThat(unreleased.size()).isEqualTo(UnreleasedFragments.MAX_WRITES);
    List<String> firstTry = new ArrayList<>();
    unreleased.retry((r, left) -> {
      firstTry.add(r.identity().key());
      return left;
    });
    assertThat(firstTry).first().isEqualTo("k1");
    for (int i = 1; i < UnreleasedFragments.MAX_ATTEMPTS - 1; i++) {
      assertThat(unreleased.retry((r, left) -> left)).isEqualTo(UnreleasedFragments.MAX_WRITES);
    }
    assertThat(unreleased.retry((r, left) -> left)).isZero();
  }

  private static JournalRecord.Staged write(String key) {
    return new JournalRecord.Staged(new ObjectIdentity("b", key, "w-" + key), 10, Map.of(), new Geometry(2, 1, 64),
        PLACEMENTS, 1);
  }
}
