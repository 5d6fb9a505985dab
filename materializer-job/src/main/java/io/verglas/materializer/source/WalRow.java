package io.verglas.materializer.source;

import io.verglas.materializer.progress.SegmentProgress;
import io.verglas.wal.WalPosition;
import java.util.Base64;

/**
 * One row read from the WAL, on its way from the source to the keyed writer.
 *
 * <p>The job sends it with {@link WalRowSerializer}. It stays a Flink POJO (public fields,
 * public no-arg constructor), so a stream of rows whose type Flink extracts itself (a map
 * function put in front of the writer) gets the POJO serializer, never Kryo. The row itself
 * travels as {@code RowCodec} bytes keyed by field id, so it does not depend on the schema it was
 * read with.
 */
public class WalRow {
  public static final byte UPSERT = 'U';
  public static final byte DELETE = 'D';
  private static final Base64.Encoder KEY_ENCODER = Base64.getEncoder().withoutPadding();

  /** What the writer is keyed by: {@code tableUuid/base64(key)}, or {@code tableUuid/stream/sequence} for append-only tables. */
  public String routingKey;
  public String tableUuid;
  /** The table identifier's levels joined by dots. */
  public String tableName;
  /** {@link #UPSERT} or {@link #DELETE}. */
  public byte op;
  public long hlc;
  public String streamId;
  public long sequence;
  public int batch;
  public int row;
  /** The row's index within its segment, counting across batches. */
  public long ordinal;
  /** How many rows the segment holds. */
  public long segmentRowCount;
  /**
   * {@code RowCodec.encodeKey} of the primary key; null for append-only tables. Never written
   * after the row is built: copies share it (see {@link WalRowSerializer#copy}).
   */
  public byte[] key;
  /**
   * {@code RowCodec.encode} of the row in the table's schema at read time. Never written after
   * the row is built: copies share it.
   */
  public byte[] payload;
  /** The id of the table schema {@link #payload} was encoded with. */
  public int schemaId;
  public String segmentKey;

  public WalRow() {}

  /** The routing key of a primary-key row: {@code tableUuid/base64(key)}. */
  public static String keyedRoutingKey(String tableUuid, byte[] key) {
    return tableUuid + "/" + KEY_ENCODER.encodeToString(key);
  }

  /** The table UUID of a routing key. */
  public static String tableUuidOf(String routingKey) {
    return routingKey.substring(0, separator(routingKey));
  }

  /** The primary-key bytes of a {@link #keyedRoutingKey}. */
  public static byte[] keyOf(String routingKey) {
    return Base64.getDecoder().decode(routingKey.substring(separator(routingKey) + 1));
  }

  private static int separator(String routingKey) {
    int at = routingKey.indexOf('/');
    if (at < 0) {
      throw new IllegalArgumentException("Not a routing key: " + routingKey);
    }
    return at;
  }

  /** The row's place in the last-writer-wins order. */
  public WalPosition position() {
    return new WalPosition(hlc, streamId, sequence, batch, row);
  }

  /**
   * Compares the two rows' places in the last-writer-wins order: the same as comparing their
   * {@link #position()}s, without creating them (the writer compares every buffered duplicate).
   */
  public int comparePosition(WalRow other) {
    return WalPosition.compare(hlc, streamId, sequence, batch, row,
        other.hlc, other.streamId, other.sequence, other.batch, other.row);
  }

  /** How far into its segment this row reaches. */
  public SegmentProgress progress() {
    return new SegmentProgress(streamId, sequence, ordinal + 1, segmentRowCount);
  }

  public boolean appendOnly() {
    return key == null;
  }

  public boolean isDelete() {
    return op == DELETE;
  }

  @Override
  public String toString() {
    return "WalRow{" + tableName + " " + (char) op + " @" + streamId + "/" + sequence + "/"
        + batch + "/" + row + " hlc=" + hlc + "}";
  }
}
