package io.verglas.materializer.testing;

import static io.verglas.materializer.testing.TestingWal.row;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.iceberg.Table;

/**
 * Random upserts and deletes over a small key space of the users table, written as WAL segments,
 * with the model of what the table must hold once they are materialized (last writer wins, as
 * {@code id → "name/region/value"}). Every batch gets a newer clock than all before it, so write
 * order is last-writer-wins order, whichever stream a segment goes to.
 */
public final class TestingWorkload {
  private static final String[] REGIONS = {"eu", "us"};

  private final Random random;
  private final int keys;
  private final Map<Integer, String> model = new TreeMap<>();
  private int version;
  private int rows;

  public TestingWorkload(long seed, int keys) {
    this.random = new Random(seed);
    this.keys = keys;
  }

  /** Writes one segment of {@code ops} random rows (in one or two batches); returns its key. */
  public synchronized String segment(TestingWal wal, Table table, int ops) {
    TestingWal.Segment segment = wal.segment(table);
    int split = ops > 1 && random.nextBoolean() ? 1 + random.nextInt(ops - 1) : ops;
    segment.batch(batch(split));
    if (split < ops) {
      segment.batch(batch(ops - split));
    }
    return segment.put();
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object>[] batch(int count) {
    List<Map<String, Object>> batch = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int key = random.nextInt(keys);
      rows++;
      if (random.nextInt(5) == 0) {
        batch.add(row("id", key, "_op", "D"));
        model.remove(key);
      } else {
        version++;
        String name = "k" + key + "v" + version;
        String region = REGIONS[random.nextInt(REGIONS.length)];
        batch.add(row("id", key, "name", name, "region", region, "value", (long) version));
        model.put(key, name + "/" + region + "/" + version);
      }
    }
    return batch.toArray(new Map[0]);
  }

  /** Upserts every key once more (in one segment); returns the segment key. */
  @SuppressWarnings("unchecked")
  public synchronized String touchAll(TestingWal wal, Table table) {
    List<Map<String, Object>> batch = new ArrayList<>();
    for (int key = 0; key < keys; key++) {
      version++;
      String name = "k" + key + "v" + version;
      batch.add(row("id", key, "name", name, "region", "eu", "value", (long) version));
      model.put(key, name + "/eu/" + version);
    }
    rows += keys;
    return wal.segment(table).batch(batch.toArray(new Map[0])).put();
  }

  public synchronized Map<Integer, String> model() {
    return new TreeMap<>(model);
  }

  public synchronized int rows() {
    return rows;
  }
}
