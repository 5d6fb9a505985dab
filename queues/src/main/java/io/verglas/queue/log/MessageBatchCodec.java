package io.verglas.queue.log;

import io.verglas.arrow.ArrowIpc;
import io.verglas.queue.QueueMessage;
import io.verglas.wal.CorruptSegmentException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The Arrow form of one publish call's messages: the IPC bytes of one WAL batch. Columns:
 * {@code key} (utf8, nullable), {@code payload} (binary), {@code headers} (map utf8 → utf8).
 * The batch's publish time is its WAL batch stamp, not a column. Any Arrow reader can read a
 * queue segment's batches as ordinary rows.
 */
public final class MessageBatchCodec {
  static final Schema SCHEMA = new Schema(List.of(
      Field.nullable("key", ArrowType.Utf8.INSTANCE),
      Field.notNullable("payload", ArrowType.Binary.INSTANCE),
      new Field("headers", FieldType.notNullable(new ArrowType.Map(false)), List.of(
          new Field(MapVector.DATA_VECTOR_NAME, FieldType.notNullable(ArrowType.Struct.INSTANCE),
              List.of(Field.notNullable(MapVector.KEY_NAME, ArrowType.Utf8.INSTANCE),
                  Field.nullable(MapVector.VALUE_NAME, ArrowType.Utf8.INSTANCE)))))));

  private final BufferAllocator allocator;

  public MessageBatchCodec(BufferAllocator allocator) {
    this.allocator = allocator;
  }

  public byte[] encode(List<QueueMessage> messages) {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
      VarCharVector keys = (VarCharVector) root.getVector("key");
      VarBinaryVector payloads = (VarBinaryVector) root.getVector("payload");
      MapVector headers = (MapVector) root.getVector("headers");
      int entries = 0;
      for (int i = 0; i < messages.size(); i++) {
        QueueMessage message = messages.get(i);
        if (message.key() == null) {
          keys.setNull(i);
        } else {
          keys.setSafe(i, utf8(message.key()));
        }
        payloads.setSafe(i, message.payload());
        entries = writeHeaders(headers, i, entries, message.headers());
      }
      headers.getDataVector().setValueCount(entries);
      root.setRowCount(messages.size());
      return ArrowIpc.encode(root);
    }
  }

  private static int writeHeaders(MapVector headers, int row, int at, Map<String, String> values) {
    StructVector entries = (StructVector) headers.getDataVector();
    VarCharVector names = entries.getChild(MapVector.KEY_NAME, VarCharVector.class);
    VarCharVector texts = entries.getChild(MapVector.VALUE_NAME, VarCharVector.class);
    headers.startNewValue(row);
    int entry = at;
    for (Map.Entry<String, String> header : values.entrySet()) {
      names.setSafe(entry, utf8(header.getKey()));
      texts.setSafe(entry, utf8(header.getValue()));
      entries.setIndexDefined(entry);
      entry++;
    }
    headers.endValue(row, values.size());
    return entry;
  }

  /** The messages of one batch, in order; a batch that is not a message batch is corrupt. */
  public List<QueueMessage> decode(byte[] ipc) {
    List<QueueMessage> messages = new ArrayList<>();
    try (ArrowStreamReader reader = ArrowIpc.open(ipc, allocator)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      if (!root.getSchema().equals(SCHEMA)) {
        throw new CorruptSegmentException("Cannot read queue batch: unexpected schema "
            + root.getSchema());
      }
      while (reader.loadNextBatch()) {
        readRows(root, messages);
      }
    } catch (IOException e) {
      throw new CorruptSegmentException("Cannot read queue batch: " + e.getMessage(), e);
    }
    return messages;
  }

  private static void readRows(VectorSchemaRoot root, List<QueueMessage> into) {
    VarCharVector keys = (VarCharVector) root.getVector("key");
    VarBinaryVector payloads = (VarBinaryVector) root.getVector("payload");
    MapVector headers = (MapVector) root.getVector("headers");
    StructVector entries = (StructVector) headers.getDataVector();
    VarCharVector names = entries.getChild(MapVector.KEY_NAME, VarCharVector.class);
    VarCharVector texts = entries.getChild(MapVector.VALUE_NAME, VarCharVector.class);
    for (int i = 0; i < root.getRowCount(); i++) {
      Map<String, String> values = new LinkedHashMap<>();
      for (int e = headers.getElementStartIndex(i); e < headers.getElementEndIndex(i); e++) {
        values.put(text(names.get(e)), texts.isNull(e) ? "" : text(texts.get(e)));
      }
      String key = keys.isNull(i) ? null : text(keys.get(i));
      into.add(new QueueMessage(key, payloads.get(i), values));
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
