package io.verglas.cli.local;

import io.verglas.sdk.TableClient;
import io.verglas.sdk.VerglasClient;
import io.verglas.table.CreateTableRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * The example worker of {@code docs/examples/workers} and its data: its tables, raw events
 * around the hour of {@link #HOUR} and the aggregate rows its run for that hour must leave.
 */
final class HourlyExample {
  static final Instant HOUR = Instant.parse("2026-12-01T10:00:00Z");
  static final String WORKER_CLASS = "example.HourlyAggregate";
  /** "hour item events amount" of the run for {@link #HOUR}. */
  static final List<String> EXPECTED = List.of("2026-12-01T10 tea 2 5", "2026-12-01T10 cake 1 5");

  private HourlyExample() {}

  /** The worker compiled from docs/ into a jar under {@code work}. */
  static Path jar(Path work) throws IOException {
    return ExampleJar.build(ExampleJar.root().resolve("docs/examples/workers/HourlyAggregate.java"), work);
  }

  /** Creates shop.raw_events and shop.hourly and commits five raw events around {@link #HOUR}. */
  static void createAndSeed(VerglasClient client) {
    client.createTable(new CreateTableRequest(List.of("shop"), "raw_events", new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.required(2, "ts_ms", Types.LongType.get()),
        Types.NestedField.required(3, "item", Types.StringType.get()),
        Types.NestedField.required(4, "amount", Types.LongType.get())), List.of("id"),
        PartitionSpec.unpartitioned(), Map.of()));
    client.createTable(new CreateTableRequest(List.of("shop"), "hourly", new Schema(
        Types.NestedField.required(1, "hour", Types.StringType.get()),
        Types.NestedField.required(2, "item", Types.StringType.get()),
        Types.NestedField.optional(3, "events", Types.LongType.get()),
        Types.NestedField.optional(4, "amount", Types.LongType.get())), List.of("hour", "item"),
        PartitionSpec.unpartitioned(), Map.of()));
    client.table("shop.raw_events").commit(List.of(raw(1, HOUR.minusSeconds(1), "cake", 1),
        raw(2, HOUR.plusSeconds(300), "tea", 2), raw(3, HOUR.plusSeconds(1800), "tea", 3),
        raw(4, HOUR.plusSeconds(3599), "cake", 5), raw(5, HOUR.plusSeconds(3600), "tea", 7)), "seed");
  }

  /** shop.hourly's rows as "hour item events amount". */
  static List<String> aggregates(VerglasClient client) {
    TableClient out = client.table("shop.hourly");
    return out.rows(out.snapshot().snapshotId(), null).rows().stream()
        .map(r -> r.get("hour") + " " + r.get("item") + " " + r.get("events") + " " + r.get("amount"))
        .toList();
  }

  private static Map<String, Object> raw(long id, Instant time, String item, long amount) {
    return Map.of("id", id, "ts_ms", time.toEpochMilli(), "item", item, "amount", amount);
  }
}
