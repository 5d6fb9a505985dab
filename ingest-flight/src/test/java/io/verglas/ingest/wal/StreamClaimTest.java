package io.verglas.ingest.wal;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.wal.WalLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class StreamClaimTest {
  private static final IngestLayout LAYOUT = new IngestLayout(WalLayout.defaults());
  private final TestingSegmentStore store = new TestingSegmentStore();

  private StreamClaim claim(String owner) {
    StreamClaim claim = new StreamClaim(store, LAYOUT, "s", owner, () -> 7L);
    claim.acquire(2);
    return claim;
  }

  @Test
  void theLaterClaimWinsAndTheEarlierOneSeesItOnlyAfterItsTicket() {
    StreamClaim first = claim("a");
    int before = store.heads();
    long ticket = first.ticket();
    assertThat(first.supersededSince(ticket)).isFalse();
    StreamClaim second = claim("b");

    assertThat(first.epoch()).isEqualTo(1);
    assertThat(second.epoch()).isEqualTo(2);
    assertThat(second.previous()).hasValueSatisfying(p -> {
      assertThat(p.owner()).isEqualTo("a");
      assertThat(p.lanes()).isEqualTo(2);
    });
    // A check that started before the new claim is not asked again for the old ticket...
    assertThat(first.supersededSince(ticket)).isFalse();
    assertThat(store.heads() - before).isEqualTo(1);
    // ...but any write after it is checked anew, and from then on the answer sticks.
    assertThat(first.supersededSince(first.ticket())).isTrue();
    assertThat(first.superseded()).isTrue();
    assertThat(store.heads() - before).isEqualTo(2);
    assertThat(second.superseded()).isFalse();
  }

  @Test
  void lanesFinishingTogetherShareOneCheck() throws Exception {
    StreamClaim claim = claim("a");
    List<Long> tickets = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      tickets.add(claim.ticket());
    }
    int before = store.heads();
    List<CompletableFuture<Boolean>> checks = new ArrayList<>();
    for (long ticket : tickets) {
      checks.add(CompletableFuture.supplyAsync(() -> claim.supersededSince(ticket)));
    }
    for (CompletableFuture<Boolean> check : checks) {
      assertThat(check.get()).isFalse();
    }
    // Each check started after all eight tickets, so one or two cover them all.
    assertThat(store.heads() - before).isBetween(1, 2);
  }
}
