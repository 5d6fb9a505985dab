package io.verglas.queue.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class LeasePlannerTest {
  private static final long LEASE = 1_000;

  @Test
  void newLeasesTileTheLogAfterTheTail() {
    GroupState empty = GroupState.startingAfter(-1);
    Lease a = LeasePlanner.takeNew(empty, "c1", 2, 0, LEASE, 8).orElseThrow().result();
    assertThat(a).isEqualTo(new Lease(0, 2, "c1", 1, LEASE, false));
    GroupState one = LeasePlanner.takeNew(empty, "c1", 2, 0, LEASE, 8).orElseThrow().next();
    assertThat(LeasePlanner.takeNew(one, "c2", 2, 0, LEASE, 8)).as("nothing new listed").isEmpty();
    assertThat(LeasePlanner.takeNew(one, "c2", 5, 0, LEASE, 1)).as("lease bound").isEmpty();
    Lease b = LeasePlanner.takeNew(one, "c2", 5, 0, LEASE, 8).orElseThrow().result();
    assertThat(b.first()).isEqualTo(3);
    assertThat(b.generation()).isEqualTo(2);
  }

  @Test
  void ackMovesThePositionOnlyOverAGaplessRunOfDoneLeases() {
    GroupState s = new GroupState(-1, 2, List.of(new Lease(0, 1, "a", 1, LEASE, false),
        new Lease(2, 3, "b", 2, LEASE, false)));
    LeasePlanner.Plan<Boolean> second = LeasePlanner.ack(s, s.leases().get(1));
    assertThat(second.result()).isTrue();
    assertThat(second.next().acked()).isEqualTo(-1);
    LeasePlanner.Plan<Boolean> first = LeasePlanner.ack(second.next(), s.leases().get(0));
    assertThat(first.next().acked()).isEqualTo(3);
    assertThat(first.next().leases()).isEmpty();
    assertThat(LeasePlanner.ack(first.next(), s.leases().get(0)).result())
        .as("acknowledging twice changes nothing").isFalse();
  }

  @Test
  void expiredLeaseIsTakenOverUnderANewGenerationAndTheOldOneIsFenced() {
    Lease old = new Lease(0, 0, "dead", 1, LEASE, false);
    GroupState s = new GroupState(-1, 1, List.of(old));
    assertThat(LeasePlanner.takeExpired(s, "live", LEASE - 1, LEASE)).isEmpty();
    LeasePlanner.Plan<Lease> taken = LeasePlanner.takeExpired(s, "live", LEASE, LEASE)
        .orElseThrow();
    assertThat(taken.result().consumer()).isEqualTo("live");
    assertThat(taken.result().generation()).isEqualTo(2);
    assertThat(LeasePlanner.ack(taken.next(), old).result()).isFalse();
    assertThat(LeasePlanner.reschedule(taken.next(), old, 0).result()).isFalse();
    assertThat(LeasePlanner.ack(taken.next(), taken.result()).next().acked()).isZero();
  }

  @Test
  void stateSurvivesItsJsonReadsVersionOneAndRefusesOtherVersions() {
    GroupState s = new GroupState(41, 7, List.of(new Lease(42, 44, "c1", 7, 1_700_000_000_000L,
        false, 3), new Lease(45, 45, "c2", 6, 5, true)));
    assertThat(GroupStateCodec.fromJson(GroupStateCodec.toJson(s))).isEqualTo(s);
    assertThat(new String(GroupStateCodec.toJson(s))).isEqualTo("{\"version\":2,\"acked\":41,"
        + "\"generation\":7,\"leases\":[{\"first\":42,\"last\":44,\"consumer\":\"c1\","
        + "\"generation\":7,\"deadline\":1700000000000,\"done\":false,\"deliveries\":3},"
        + "{\"first\":45,\"last\":45,\"consumer\":\"c2\",\"generation\":6,\"deadline\":5,"
        + "\"done\":true,\"deliveries\":1}]}");
    // written before leases counted deliveries: each counts one
    assertThat(GroupStateCodec.fromJson(("{\"version\":1,\"acked\":41,\"generation\":7,\"leases\":"
        + "[{\"first\":42,\"last\":44,\"consumer\":\"c1\",\"generation\":7,"
        + "\"deadline\":1700000000000,\"done\":false}]}").getBytes()))
        .isEqualTo(new GroupState(41, 7, List.of(new Lease(42, 44, "c1", 7, 1_700_000_000_000L, false, 1))));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> GroupStateCodec.fromJson(
        "{\"version\":3}".getBytes())).hasMessage(
            "Cannot read consumer group state: unknown version 3");
  }

  @Test
  void aTakeoverCountsOneMoreDelivery() {
    GroupState s = new GroupState(-1, 1, List.of(new Lease(0, 0, "dead", 1, LEASE, false, 2)));
    Lease taken = LeasePlanner.takeExpired(s, "next", LEASE, 1000).orElseThrow().result();
    assertThat(taken.deliveries()).isEqualTo(3);
    assertThat(LeasePlanner.ack(new GroupState(-1, 2, List.of(taken)), taken).next().leases()).isEmpty();
  }
}
