package io.verglas.materializer.delta;

import io.verglas.materializer.progress.SegmentProgress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * The {@link TableDelta} bytes (network and committer state). Version 2 (written):
 * <pre>
 *   str tableUuid, str tableName, i64 checkpointId, i32 subtask,
 *   i32 n, n × str dataFileJson,
 *   i32 m, m × (str path, i32 k, k × (i64 position, i32 keyLength, keyLength × u8 keyPayload)),
 *   i32 s, s × (str segmentKey, str stream, i64 sequence, i64 rowsThrough, i64 rowCount)
 * </pre>
 * where {@code str} is an i32 byte length and UTF-8 bytes (file JSON can exceed writeUTF's 64 KiB)
 * and {@code keyLength} is -1 for a row whose key is unknown. Version 1 (still read) lacks the
 * keys: {@code k × i64 position}; its rows read with unknown keys. Integers are big-endian.
 *
 * <p>The writer serializes a delta of every row it replaced at each checkpoint, on its task
 * thread: the bytes go through Flink's unsynchronized buffers (a {@code DataOutputStream} took a
 * lock per integer). The buffer grows by doubling rather than being sized by a first pass over
 * every deleted row's key, which would read each key twice.
 */
public final class TableDeltaSerializer implements SimpleVersionedSerializer<TableDelta> {
  public static final TableDeltaSerializer INSTANCE = new TableDeltaSerializer();
  static final int VERSION = 2;
  static final int VERSION_WITHOUT_KEYS = 1;
  private static final int INITIAL_BUFFER_BYTES = 4096;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(TableDelta delta) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(INITIAL_BUFFER_BYTES);
    writeString(out, delta.tableUuid());
    writeString(out, delta.tableName());
    out.writeLong(delta.checkpointId());
    out.writeInt(delta.subtask());
    out.writeInt(delta.dataFiles().size());
    for (String file : delta.dataFiles()) {
      writeString(out, file);
    }
    out.writeInt(delta.deletes().size());
    for (Map.Entry<String, DeletedRows> entry : delta.deletedRows().entrySet()) {
      DeletedRows rows = entry.getValue();
      writeString(out, entry.getKey());
      out.writeInt(rows.size());
      for (int i = 0; i < rows.size(); i++) {
        out.writeLong(rows.position(i));
        byte[] key = rows.key(i);
        out.writeInt(key == null ? -1 : key.length);
        if (key != null) {
          out.write(key);
        }
      }
    }
    out.writeInt(delta.segments().size());
    for (Map.Entry<String, SegmentProgress> entry : delta.segments().entrySet()) {
      SegmentProgress progress = entry.getValue();
      writeString(out, entry.getKey());
      writeString(out, progress.streamId());
      out.writeLong(progress.sequence());
      out.writeLong(progress.rowsThrough());
      out.writeLong(progress.rowCount());
    }
    return out.getCopyOfBuffer();
  }

  @Override
  public TableDelta deserialize(int version, byte[] serialized) throws IOException {
    if (version != VERSION && version != VERSION_WITHOUT_KEYS) {
      throw new IOException("Cannot read table delta: unknown version " + version);
    }
    DataInputDeserializer in = new DataInputDeserializer(serialized);
    String uuid = readString(in);
    String name = readString(in);
    long checkpointId = in.readLong();
    int subtask = in.readInt();
    int fileCount = in.readInt();
    List<String> files = new ArrayList<>(fileCount);
    for (int i = 0; i < fileCount; i++) {
      files.add(readString(in));
    }
    int deleteCount = in.readInt();
    Map<String, DeletedRows> deletes = new LinkedHashMap<>();
    for (int i = 0; i < deleteCount; i++) {
      String path = readString(in);
      int rowCount = in.readInt();
      if (rowCount < 0) {
        throw new IOException("Cannot read table delta: row count " + rowCount + " is invalid");
      }
      DeletedRows.Builder rows = DeletedRows.builder();
      for (int r = 0; r < rowCount; r++) {
        long position = in.readLong();
        rows.add(position, version == VERSION_WITHOUT_KEYS ? null : readKey(in));
      }
      deletes.put(path, rows.build());
    }
    int segmentCount = in.readInt();
    Map<String, SegmentProgress> segments = new LinkedHashMap<>();
    for (int i = 0; i < segmentCount; i++) {
      String key = readString(in);
      segments.put(key, new SegmentProgress(readString(in), in.readLong(), in.readLong(),
          in.readLong()));
    }
    if (in.available() > 0) {
      throw new IOException("Cannot read table delta: " + in.available() + " trailing bytes");
    }
    return new TableDelta(uuid, name, checkpointId, subtask, files, deletes, segments);
  }

  private static byte[] readKey(DataInputDeserializer in) throws IOException {
    int length = in.readInt();
    if (length == -1) {
      return null;
    }
    if (length < 0 || length > in.available()) {
      throw new IOException("Cannot read table delta: key length " + length + " is invalid");
    }
    byte[] key = new byte[length];
    in.readFully(key);
    return key;
  }

  private static void writeString(DataOutputSerializer out, String value) throws IOException {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static String readString(DataInputDeserializer in) throws IOException {
    int length = in.readInt();
    if (length < 0 || length > in.available()) {
      throw new IOException("Cannot read table delta: string length " + length + " is invalid");
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
