package io.verglas.maintenance.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/** An order-independent SHA-256 of every live row of a table snapshot (all columns). */
public final class ContentHash {
  private ContentHash() {}

  public static String of(Table table, long snapshotId) {
    return hash(rows(table, snapshotId));
  }

  /** The rows of a snapshot as strings, sorted: to show what differs when hashes do. */
  public static List<String> rows(Table table, long snapshotId) {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
      records.forEach(record -> rows.add(format(table, record)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rows.sort(null);
    return rows;
  }

  /**
   * The rows of a snapshot with their row lineage ({@code _row_id},
   * {@code _last_updated_sequence_number}, as Iceberg's reader gives them), sorted.
   */
  public static List<String> rowsWithLineage(Table table, long snapshotId) {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).useSnapshot(snapshotId)
        .project(MetadataColumns.schemaWithRowLineage(table.schema())).build()) {
      records.forEach(record -> rows.add(format(table, record)
          + MetadataColumns.ROW_ID.name() + '=' + record.getField(MetadataColumns.ROW_ID.name())
          + ';' + MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.name() + '='
          + record.getField(MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.name())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rows.sort(null);
    return rows;
  }

  /** The hash a table holding exactly {@code model} ({@code id → "name/region/value"}) has. */
  public static String ofModel(Table table, Map<Integer, String> model) {
    List<String> rows = new ArrayList<>();
    model.forEach((id, value) -> {
      String[] parts = value.split("/", -1);
      rows.add(format(table, TestingFiles.user(table, id, parts[0], parts[1],
          Long.parseLong(parts[2]))));
    });
    return hash(rows);
  }

  /**
   * The table columns of a row: a reader applying position deletes may add {@code _pos}, which
   * is where the row sits, not what it holds.
   */
  private static String format(Table table, Record record) {
    StringBuilder out = new StringBuilder();
    table.schema().columns().forEach(column ->
        out.append(column.name()).append('=').append(record.getField(column.name())).append(';'));
    return out.toString();
  }

  private static String hash(List<String> rows) {
    rows.sort(null);
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      for (String row : rows) {
        digest.update(row.getBytes(StandardCharsets.UTF_8));
        digest.update((byte) '\n');
      }
      return HexFormat.of().formatHex(digest.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
