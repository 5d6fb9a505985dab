package io.verglas.materializer.keyindex;

import io.verglas.materializer.data.DataFileNames;
import io.verglas.materializer.types.NonReusingSerializer;
import io.verglas.materializer.types.RecentStrings;
import io.verglas.materializer.types.VarLongs;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Writes {@link KeyEntry}s as the key index of builds before its pages stored them, one state
 * entry per routing key: the writer reads such a state when it is restored from one, to move
 * it into pages ({@link IndexPageCodec} writes those), and its varint and file name forms serve
 * the pages too.
 *
 * <p>What follows is why the per-key form was so: it was read and written once per
 * materialized row, on the writer's task thread.
 *
 * <p>Why not Flink's POJO serializer, which the index used before: it writes every string char
 * by char in a variable-length encoding and sets each field by reflection, and an entry holds a
 * data file path of a hundred-odd characters. Here strings are UTF-8 bytes, and a read hands out
 * the same String instance for a path or stream id read recently ({@link RecentStrings}): the
 * entries of one flush point at the few files of the last flushes, and the writer groups deletes
 * by path in a hash map, so a shared instance also saves hashing the path again. Written, a path
 * is encoded once per file, not per entry (the writer hands each file's path instance to all
 * its entries).
 *
 * <p>Format: a flags byte (deleted, has stream, has file, compact, named file), the hybrid
 * clock, the stream id, sequence, batch and row of the WAL position, then the data file path and
 * row position. A data file named as the writer names its files is written in its
 * {@link DataFileNames} form (flag "named file"), about half the bytes; other paths as they are.
 * (Builds before that flag cannot read entries that have it.)
 * Entries are written compact: sequence, batch, row and position as unsigned varints (most are
 * small, and RocksDB copies every byte of every entry into its memtable, its files and each
 * incremental checkpoint); entries without the flag, written by earlier builds, have them at
 * fixed width and are read as they are. State written by the POJO serializer is migrated on
 * restore (see {@link Snapshot}).
 */
public final class KeyEntrySerializer extends NonReusingSerializer<KeyEntry> {
  private static final long serialVersionUID = 1L;
  private static final int DELETED = 1;
  private static final int HAS_STREAM = 2;
  private static final int HAS_FILE = 4;
  private static final int COMPACT = 8;
  /** The data file is written as the name the writer gave it ({@link DataFileNames}). */
  private static final int NAMED_FILE = 16;
  /**
   * Distinct paths (and stream ids) remembered: an entry's file is one of the last few flushes'
   * files.
   */
  private static final int RECENT_STRINGS = 8;

  private transient RecentStrings streams;
  private transient RecentStrings paths;
  private transient DataFileNames fileNames;

  @Override
  public TypeSerializer<KeyEntry> duplicate() {
    return new KeyEntrySerializer();
  }

  @Override
  public KeyEntry createInstance() {
    return new KeyEntry();
  }

  @Override
  public KeyEntry copy(KeyEntry from) {
    return from.copy();
  }

  @Override
  public void serialize(KeyEntry entry, DataOutputView out) throws IOException {
    recentStrings();
    byte[] fileName = entry.dataFile == null ? null : fileNames.formOf(entry.dataFile);
    out.writeByte((entry.deleted ? DELETED : 0) | (entry.streamId != null ? HAS_STREAM : 0)
        | (entry.dataFile != null ? HAS_FILE : 0) | COMPACT
        | (fileName != null ? NAMED_FILE : 0));
    out.writeLong(entry.hlc);
    if (entry.streamId != null) {
      streams.write(entry.streamId, out);
    }
    VarLongs.write(entry.sequence, out);
    VarLongs.write(Integer.toUnsignedLong(entry.batch), out);
    VarLongs.write(Integer.toUnsignedLong(entry.row), out);
    if (fileName != null) {
      out.write(fileName);
    } else if (entry.dataFile != null) {
      paths.write(entry.dataFile, out);
    }
    VarLongs.write(entry.filePosition, out);
  }

  @Override
  public KeyEntry deserialize(DataInputView in) throws IOException {
    recentStrings();
    KeyEntry entry = new KeyEntry();
    int flags = in.readByte();
    boolean compact = (flags & COMPACT) != 0;
    entry.deleted = (flags & DELETED) != 0;
    entry.hlc = in.readLong();
    entry.streamId = (flags & HAS_STREAM) != 0 ? streams.read(in) : null;
    entry.sequence = compact ? VarLongs.read(in) : in.readLong();
    entry.batch = compact ? (int) VarLongs.read(in) : in.readInt();
    entry.row = compact ? (int) VarLongs.read(in) : in.readInt();
    entry.dataFile = (flags & NAMED_FILE) != 0 ? fileNames.read(in)
        : (flags & HAS_FILE) != 0 ? paths.read(in) : null;
    entry.filePosition = compact ? VarLongs.read(in) : in.readLong();
    return entry;
  }

  private void recentStrings() {
    if (streams == null) {
      streams = new RecentStrings(RECENT_STRINGS);
      paths = new RecentStrings(RECENT_STRINGS);
      fileNames = new DataFileNames();
    }
  }

  @Override
  public TypeSerializerSnapshot<KeyEntry> snapshotConfiguration() {
    return new Snapshot();
  }

  /**
   * Names the serializer (format version 1). A key index written by Flink's POJO serializer,
   * as releases before this serializer wrote it, is compatible after migration: on restore
   * Flink reads every entry with the POJO serializer and writes it with this one.
   */
  public static class Snapshot extends SimpleTypeSerializerSnapshot<KeyEntry> {
    public Snapshot() {
      super(KeyEntrySerializer::new);
    }

    @Override
    public TypeSerializerSchemaCompatibility<KeyEntry> resolveSchemaCompatibility(
        TypeSerializerSnapshot<KeyEntry> old) {
      if (old instanceof PojoSerializerSnapshot<KeyEntry> pojo
          && pojo.restoreSerializer().createInstance() instanceof KeyEntry) {
        return TypeSerializerSchemaCompatibility.compatibleAfterMigration();
      }
      return super.resolveSchemaCompatibility(old);
    }
  }
}
