package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.sdk.ChangeFollower;
import io.verglas.sdk.FeedFollower;
import io.verglas.sdk.TableChange;
import io.verglas.sdk.TableClient;
import io.verglas.sdk.TableCommit;
import io.verglas.sdk.TableDelta;
import io.verglas.sdk.TableSnapshot;
import io.verglas.sdk.VerglasClient;
import io.verglas.table.CreateTableRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The SDK's table verbs against a whole local stack: commit with an idempotency key (and its
 * replay, which changes nothing and names the same snapshot), snapshot, rows of a snapshot, the
 * delta between two snapshots the materializer wrote with deletion vectors, and following the
 * table's commits (and their rows) on the change feed, resumed from a kept position.
 */
class TableClientITCase {
  private static final Schema SALES = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "item", Types.StringType.get()),
      Types.NestedField.optional(3, "qty", Types.IntegerType.get()));

  private static final String REPLACE = "replace";

  record Sale(long id, String item, Integer qty) {}

  @RegisterExtension
  final LocalStackExtension local = LocalStackExtension.builder().build();

  @Test
  void commitReplaySnapshotRowsDeltaAndFollow() {
    EndpointsFile endpoints = local.stack().endpoints();
    try (VerglasClient client = VerglasClient.builder().uri(endpoints.flightUri())
        .token(endpoints.flightToken()).queryEndpoint(endpoints.s3Endpoint(), endpoints.catalogToken())
        .changeFeed(endpoints.eventsUri(), endpoints.adminToken()).build()) {
      client.createTable(new CreateTableRequest(List.of("shop"), "sales", SALES, List.of("id"),
          PartitionSpec.unpartitioned(), Map.of()));
      TableClient sales = client.table("shop.sales");
      assertThat(sales.snapshot()).isNull();

      List<Object> first = List.of(new Sale(1, "tea", 2), new Sale(2, "cake", 1),
          Map.of("id", 3L, "item", "jam", "qty", 4));
      long s1 = sales.commit(first, "run-1");
      assertThat(sales.commit(first, "run-1")).as("a replay names the same snapshot").isEqualTo(s1);
      assertThat(ids(sales.rows(s1, null).rows())).containsExactlyInAnyOrder(1L, 2L, 3L);
      assertThatThrownBy(() -> sales.commit(List.of(new Sale(9, null, 1)), "run-bad"))
          .hasMessage("Cannot add row 0: missing required column 'item'");

      long s2 = sales.commit(List.of(new Sale(2, "cake", 5), Map.of("id", 3L, "_op", "D"),
          new Sale(4, "bun", 1)), "run-2");
      assertThat(sales.commit(List.of(new Sale(2, "cake", 5), Map.of("id", 3L, "_op", "D"),
          new Sale(4, "bun", 1)), "run-2")).isEqualTo(s2);
      // the stack's maintenance may compact the table at any time: its snapshots change no rows
      TableSnapshot current = sales.snapshot();
      assertThat(current.snapshotId() == s2 || REPLACE.equals(current.operation()))
          .as("current snapshot %s", current).isTrue();
      TableSnapshot second = sales.snapshot(s2);
      assertThat(parentCommit(sales, second)).as("the replays made no snapshot").isEqualTo(s1);
      assertThat(second.idempotencyKeys()).containsExactly("run-2");
      assertThat(ids(sales.rows(s2, Expressions.greaterThan("qty", 1)).rows())).containsExactlyInAnyOrder(1L, 2L);

      TableDelta delta = sales.delta(s1, s2);
      assertThat(ids(delta.inserted())).containsExactly(4L);
      assertThat(delta.updated()).singleElement().satisfies(u -> {
        assertThat(((Number) u.before().get("qty")).intValue()).isEqualTo(1);
        assertThat(((Number) u.after().get("qty")).intValue()).isEqualTo(5);
      });
      assertThat(ids(delta.deleted())).containsExactly(3L);

      List<TableChange> changes = new ArrayList<>();
      try (ChangeFollower follower = sales.followRows(1)) {
        while (changes.size() < 2) {
          TableChange change = follower.poll(Duration.ofSeconds(30));
          assertThat(change).as("a change within 30 s").isNotNull();
          if (REPLACE.equals(change.commit().operation())) {
            assertThat(change.delta().isEmpty()).isTrue();
          } else {
            changes.add(change);
          }
        }
      }
      assertThat(changes).extracting(c -> c.commit().snapshotId()).containsExactly(s1, s2);
      assertThat(ids(changes.get(0).delta().inserted())).containsExactlyInAnyOrder(1L, 2L, 3L);
      assertThat(changes.get(1).delta()).usingRecursiveComparison().ignoringFields("fromSnapshotId")
          .isEqualTo(delta); // from its parent, which is s1 or a compaction of it
      try (FeedFollower resumed = sales.follow(changes.get(0).commit().nextPosition())) {
        List<Long> commits = new ArrayList<>();
        for (TableCommit next = resumed.poll(Duration.ofSeconds(30)); next != null;
            next = resumed.poll(Duration.ofMillis(500))) {
          if (!REPLACE.equals(next.operation())) {
            commits.add(next.snapshotId());
          }
        }
        assertThat(commits).as("resumed after s1: s2 only").containsExactly(s2);
      }
    }
  }

  /** The snapshot's nearest ancestor that is not a compaction. */
  private static Long parentCommit(TableClient table, TableSnapshot snapshot) {
    TableSnapshot parent = table.snapshot(snapshot.parentId());
    while (REPLACE.equals(parent.operation())) {
      parent = table.snapshot(parent.parentId());
    }
    return parent.snapshotId();
  }

  private static List<Long> ids(List<Map<String, Object>> rows) {
    return rows.stream().map(r -> ((Number) r.get("id")).longValue()).toList();
  }
}
