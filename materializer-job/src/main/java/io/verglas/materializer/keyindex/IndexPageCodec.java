package io.verglas.materializer.keyindex;

import io.verglas.materializer.data.DataFileNames;
import io.verglas.materializer.types.RecentStrings;
import io.verglas.materializer.types.VarLongs;
import java.io.IOException;
import java.util.Arrays;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * Writes and reads key index pages ({@link IndexPage}) as the bytes of one state entry.
 *
 * <p>Format (version 1): the version byte; three dictionaries, each a count and its strings:
 * the tables (UUIDs), the streams and the data files of the page's entries (a file as a kind
 * byte, then its {@link DataFileNames} form or its UTF-8 bytes); then the entry count and the
 * entries: table index, key length and bytes, a flags byte (deleted, has stream, has file), the
 * hybrid clock (8 bytes), the stream index, sequence, batch and row of the WAL position, then
 * the file index and row position. Counts, lengths, indexes and numbers are unsigned varints;
 * strings are a length and UTF-8 bytes.
 *
 * <p>Why dictionaries: a page's entries were written by a few flushes, so they name a few files
 * and streams; an entry is some 30 bytes where it was 55 as a state entry of its own, not
 * counting the state key (the routing key, 52 bytes) it no longer needs. Reading hands out the
 * string instances of the last few pages read for the same bytes ({@link RecentStrings}), so
 * decoding a page allocates nothing per entry.
 *
 * <p>Not thread-safe: it reuses its buffers and remembers recent strings.
 */
final class IndexPageCodec {
  static final int VERSION = 1;
  private static final int DELETED = 1;
  private static final int HAS_STREAM = 2;
  private static final int HAS_FILE = 4;
  private static final int LITERAL_FILE = 0;
  private static final int NAMED_FILE = 1;
  /** Strings remembered per kind, read and written: those of the last few pages. */
  private static final int RECENT = 16;

  private final DataFileNames fileNames = new DataFileNames();
  private final DataOutputSerializer out = new DataOutputSerializer(4096);
  private final Dictionary tables = new Dictionary();
  private final Dictionary streams = new Dictionary();
  private final Dictionary files = new Dictionary();
  private final RecentStrings recentTables = new RecentStrings(RECENT);
  private final RecentStrings recentStreams = new RecentStrings(RECENT);
  private final RecentStrings recentPaths = new RecentStrings(RECENT);
  private final DataInputDeserializer in = new DataInputDeserializer();
  private final Dictionary readTables = new Dictionary();
  private final Dictionary readStreams = new Dictionary();
  private final Dictionary readFiles = new Dictionary();

  /** The bytes of every entry of {@code page}. */
  byte[] encode(IndexPage page) {
    int[] all = new int[page.size()];
    for (int i = 0; i < all.length; i++) {
      all[i] = i;
    }
    return encode(page, all, 0, all.length);
  }

  /** The bytes of the entries of {@code page} whose indexes are {@code order[from, to)}. */
  byte[] encode(IndexPage page, int[] order, int from, int to) {
    try {
      out.clear();
      tables.clear();
      streams.clear();
      files.clear();
      for (int at = from; at < to; at++) {
        int i = order[at];
        tables.indexOf(page.table(i));
        streams.indexOf(page.stream(i));
        files.indexOf(page.file(i));
      }
      out.writeByte(VERSION);
      writeStrings(tables, recentTables);
      writeStrings(streams, recentStreams);
      writeVarLong(files.size);
      for (int f = 0; f < files.size; f++) {
        writeFile(files.values[f]);
      }
      writeVarLong(to - from);
      for (int at = from; at < to; at++) {
        writeEntry(page, order[at]);
      }
      return out.getCopyOfBuffer();
    } catch (IOException e) {
      throw new IllegalStateException("Cannot write key index page: " + e.getMessage(), e);
    }
  }

  /** Reads {@link #encode}d bytes into {@code into} (cleared first). */
  void decode(byte[] bytes, IndexPage into) {
    into.clear();
    in.setBuffer(bytes);
    try {
      int version = in.readUnsignedByte();
      if (version != VERSION) {
        throw new IllegalStateException("Cannot read key index page of unknown version "
            + version);
      }
      readStrings(readTables, recentTables);
      readStrings(readStreams, recentStreams);
      readFiles.clear();
      for (int f = count(); f > 0; f--) {
        readFiles.append(readFile());
      }
      int count = count();
      for (int n = 0; n < count; n++) {
        String table = read(readTables);
        int keyLength = count();
        int i = into.append(table, 0, keyLength);
        in.readFully(into.keyArray(), into.keyStart(i), keyLength);
        into.hashKey(i);
        int flags = in.readUnsignedByte();
        long hlc = in.readLong();
        String stream = (flags & HAS_STREAM) != 0 ? read(readStreams) : null;
        long sequence = VarLongs.read(in);
        int batch = (int) VarLongs.read(in);
        int row = (int) VarLongs.read(in);
        String file = null;
        long position = 0;
        if ((flags & HAS_FILE) != 0) {
          file = read(readFiles);
          position = VarLongs.read(in);
        }
        into.set(i, hlc, stream, sequence, batch, row, file, position, (flags & DELETED) != 0);
      }
      if (in.available() != 0) {
        throw new IllegalStateException("Cannot read key index page: " + in.available()
            + " bytes after its last entry");
      }
    } catch (IOException e) {
      throw new IllegalStateException("Cannot read key index page: " + e, e);
    }
  }

  private void writeEntry(IndexPage page, int i) throws IOException {
    writeVarLong(tables.indexOf(page.table(i)));
    int keyLength = page.keyLength(i);
    writeVarLong(keyLength);
    out.write(page.keyArray(), page.keyStart(i), keyLength);
    String stream = page.stream(i);
    String file = page.file(i);
    out.writeByte((page.deleted(i) ? DELETED : 0) | (stream != null ? HAS_STREAM : 0)
        | (file != null ? HAS_FILE : 0));
    out.writeLong(page.hlc(i));
    if (stream != null) {
      writeVarLong(streams.indexOf(stream));
    }
    writeVarLong(page.sequence(i));
    writeVarLong(Integer.toUnsignedLong(page.batch(i)));
    writeVarLong(Integer.toUnsignedLong(page.row(i)));
    if (file != null) {
      writeVarLong(files.indexOf(file));
      writeVarLong(page.position(i));
    }
  }

  private void writeFile(String file) throws IOException {
    byte[] form = fileNames.formOf(file);
    if (form != null) {
      out.writeByte(NAMED_FILE);
      out.write(form);
    } else {
      out.writeByte(LITERAL_FILE);
      writeString(file, recentPaths);
    }
  }

  private String readFile() throws IOException {
    int kind = in.readUnsignedByte();
    return switch (kind) {
      case NAMED_FILE -> fileNames.read(in);
      case LITERAL_FILE -> recentPaths.read(in, count());
      default -> throw new IOException("unknown data file kind " + kind);
    };
  }

  private void writeStrings(Dictionary dictionary, RecentStrings recent) throws IOException {
    writeVarLong(dictionary.size);
    for (int s = 0; s < dictionary.size; s++) {
      writeString(dictionary.values[s], recent);
    }
  }

  private void writeString(String value, RecentStrings recent) throws IOException {
    byte[] bytes = recent.utf8(value);
    writeVarLong(bytes.length);
    out.write(bytes);
  }

  private void readStrings(Dictionary into, RecentStrings recent) throws IOException {
    into.clear();
    for (int s = count(); s > 0; s--) {
      into.append(recent.read(in, count()));
    }
  }

  /** A varint that counts something in memory: at most an int. */
  private int count() throws IOException {
    long value = VarLongs.read(in);
    if (value > Integer.MAX_VALUE) {
      throw new IOException("a count of " + value);
    }
    return (int) value;
  }

  /** The string of {@code dictionary} a varint indexes. */
  private String read(Dictionary dictionary) throws IOException {
    int index = count();
    if (index >= dictionary.size) {
      throw new IOException("index " + index + " into a dictionary of " + dictionary.size);
    }
    return dictionary.values[index];
  }

  private void writeVarLong(long value) throws IOException {
    VarLongs.write(value, out);
  }

  /**
   * A page's distinct strings in first-use order. A page names a few, mostly the same instances
   * (the writer shares them), so a scan by identity, then by equality, finds one.
   */
  private static final class Dictionary {
    String[] values = new String[8];
    int size;

    void clear() {
      Arrays.fill(values, 0, size, null);
      size = 0;
    }

    /** The index of {@code value}, added if new; -1 for null. */
    int indexOf(String value) {
      if (value == null) {
        return -1;
      }
      for (int i = 0; i < size; i++) {
        if (values[i] == value) {
          return i;
        }
      }
      for (int i = 0; i < size; i++) {
        if (values[i].equals(value)) {
          return i;
        }
      }
      return append(value);
    }

    int append(String value) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size] = value;
      return size++;
    }
  }
}
