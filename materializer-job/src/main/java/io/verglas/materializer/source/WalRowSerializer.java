package io.verglas.materializer.source;

import io.verglas.materializer.types.NonReusingSerializer;
import io.verglas.materializer.types.RecentStrings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Writes {@link WalRow}s between the source and the keyed writer.
 *
 * <p>Why not Flink's POJO serializer: it reads every string char by char in a variable-length
 * encoding and sets each field by reflection; deserializing rows, five strings each, was a fifth
 * of the writer thread, the job's critical path. Here strings travel as UTF-8 bytes, decoded in
 * one call (ASCII, which table ids, stream ids and segment keys are, takes the JDK's fast path).
 * Rows only travel on the network, they are never kept in state, so the format needs no
 * evolution; the snapshot only names the serializer.
 *
 * <p>Rows arrive segment by segment, so the table, stream and segment strings of a row nearly
 * always repeat the previous row's: the deserializer compares their bytes with the previous
 * ones and hands out the same String instance when they match, instead of two allocations and a
 * decode per string (four of a row's five strings). That makes an instance stateful: each
 * thread works with its own {@link #duplicate}.
 */
public final class WalRowSerializer extends NonReusingSerializer<WalRow> {
  private static final long serialVersionUID = 2L;

  private transient RecentStrings tableUuids;
  private transient RecentStrings tableNames;
  private transient RecentStrings streamIds;
  private transient RecentStrings segmentKeys;

  @Override
  public TypeSerializer<WalRow> duplicate() {
    return new WalRowSerializer();
  }

  @Override
  public WalRow createInstance() {
    return new WalRow();
  }

  /**
   * A new row sharing the key and payload arrays, which no one writes once a row is built. Flink
   * copies every row the source hands to a writer chained to it (a parallelism of one): cloning
   * the arrays was a tenth of the bytes the job allocated.
   */
  @Override
  public WalRow copy(WalRow from) {
    WalRow row = new WalRow();
    row.routingKey = from.routingKey;
    row.tableUuid = from.tableUuid;
    row.tableName = from.tableName;
    row.op = from.op;
    row.hlc = from.hlc;
    row.streamId = from.streamId;
    row.sequence = from.sequence;
    row.batch = from.batch;
    row.row = from.row;
    row.ordinal = from.ordinal;
    row.segmentRowCount = from.segmentRowCount;
    row.key = from.key;
    row.payload = from.payload;
    row.schemaId = from.schemaId;
    row.segmentKey = from.segmentKey;
    return row;
  }

  @Override
  public void serialize(WalRow row, DataOutputView out) throws IOException {
    recentStrings();
    RecentStrings.writeOnce(row.routingKey, out);
    tableUuids.write(row.tableUuid, out);
    tableNames.write(row.tableName, out);
    out.writeByte(row.op);
    out.writeLong(row.hlc);
    streamIds.write(row.streamId, out);
    out.writeLong(row.sequence);
    out.writeInt(row.batch);
    out.writeInt(row.row);
    out.writeLong(row.ordinal);
    out.writeLong(row.segmentRowCount);
    writeBytes(row.key, out);
    writeBytes(row.payload, out);
    out.writeInt(row.schemaId);
    segmentKeys.write(row.segmentKey, out);
  }

  @Override
  public WalRow deserialize(DataInputView in) throws IOException {
    recentStrings();
    WalRow row = new WalRow();
    row.routingKey = readString(in);
    row.tableUuid = tableUuids.read(in);
    row.tableName = tableNames.read(in);
    row.op = in.readByte();
    row.hlc = in.readLong();
    row.streamId = streamIds.read(in);
    row.sequence = in.readLong();
    row.batch = in.readInt();
    row.row = in.readInt();
    row.ordinal = in.readLong();
    row.segmentRowCount = in.readLong();
    row.key = readBytes(in);
    row.payload = readBytes(in);
    row.schemaId = in.readInt();
    row.segmentKey = segmentKeys.read(in);
    return row;
  }

  @Override
  public TypeSerializerSnapshot<WalRow> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Table, stream and segment recur from row to row: one string of each is remembered. */
  private void recentStrings() {
    if (tableUuids == null) {
      tableUuids = new RecentStrings(1);
      tableNames = new RecentStrings(1);
      streamIds = new RecentStrings(1);
      segmentKeys = new RecentStrings(1);
    }
  }

  private static String readString(DataInputView in) throws IOException {
    byte[] bytes = readBytes(in);
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  private static void writeBytes(byte[] value, DataOutputView out) throws IOException {
    if (value == null) {
      out.writeInt(-1);
      return;
    }
    out.writeInt(value.length);
    out.write(value);
  }

  private static byte[] readBytes(DataInputView in) throws IOException {
    int length = in.readInt();
    if (length < 0) {
      return null;
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return bytes;
  }

  /** Names the serializer; the format has a single version. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<WalRow> {
    public Snapshot() {
      super(WalRowSerializer::new);
    }
  }
}
