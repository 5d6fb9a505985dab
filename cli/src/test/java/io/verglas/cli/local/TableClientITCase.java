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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

  record Sale(long id, String item, Integer qty) {}

  @TempDir Path dir;
  private LocalStack stack;

  @AfterEach
  void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void commitReplaySnapshotRowsDeltaAndFollow() {
    stack = LocalStack.start(TestingOrders.smallStack(dir).build());
    EndpointsFile endpoints = stack.endpoints();
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
      TableSnapshot current = sales.snapshot();
      assertThat(current.snapshotId()).isEqualTo(s2);
      assertThat(current.parentId()).as("the replays made no snapshot").isEqualTo(s1);
      assertThat(current.idempotencyKeys()).containsExactly("run-2");
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
        for (int i = 0; i < 2; i++) {
          changes.add(follower.poll(Duration.ofSeconds(30)));
        }
      }
      assertThat(changes).extracting(c -> c.commit().snapshotId()).containsExactly(s1, s2);
      assertThat(ids(changes.get(0).delta().inserted())).containsExactlyInAnyOrder(1L, 2L, 3L);
      assertThat(changes.get(1).delta()).isEqualTo(delta);
      try (FeedFollower resumed = sales.follow(changes.get(0).commit().nextPosition())) {
        TableCommit next = resumed.poll(Duration.ofSeconds(30));
        assertThat(next.snapshotId()).isEqualTo(s2);
        assertThat(next.parentSnapshotId()).isEqualTo(s1);
        assertThat(resumed.poll(Duration.ofMillis(300))).as("nothing after s2").isNull();
      }
    }
  }

  private static List<Long> ids(List<Map<String, Object>> rows) {
    return rows.stream().map(r -> ((Number) r.get("id")).longValue()).toList();
  }
}
