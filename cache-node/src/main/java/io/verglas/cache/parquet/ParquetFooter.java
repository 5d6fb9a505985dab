package io.verglas.cache.parquet;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The layout of a Parquet file read from its footer: row groups and the byte range of every
 * column chunk. Enough to map a range read to a column, or to issue the reads an engine would.
 *
 * <p>Design: the footer is a Thrift {@code FileMetaData} in the compact protocol. This reads the
 * few fields needed (row groups → column chunks → path, first page offset, compressed size,
 * value count) and skips every other field generically, so footers written by any writer
 * version parse as long as the compact protocol and these field ids hold (they are stable in
 * the Parquet format specification). A malformed footer fails with
 * {@link IllegalArgumentException} naming the offset.
 */
public final class ParquetFooter {
  private static final byte[] MAGIC = {'P', 'A', 'R', '1'};

  /** One column chunk: the dotted column path and the chunk's bytes {@code [start, start + length)}. */
  public record ColumnChunk(String path, long start, long length, long values) {
    public long end() {
      return start + length;
    }
  }

  public record RowGroup(int index, long rows, List<ColumnChunk> columns) {
    public RowGroup {
      columns = List.copyOf(columns);
    }
  }

  private final long rows;
  private final List<RowGroup> rowGroups;

  private ParquetFooter(long rows, List<RowGroup> rowGroups) {
    this.rows = rows;
    this.rowGroups = List.copyOf(rowGroups);
  }

  public long rows() {
    return rows;
  }

  public List<RowGroup> rowGroups() {
    return rowGroups;
  }

  /** Length of the footer of a file whose last 8 bytes are {@code trailer}, including them. */
  public static int suffixLength(byte[] trailer) {
    if (trailer.length != 8 || trailer[4] != MAGIC[0] || trailer[5] != MAGIC[1]
        || trailer[6] != MAGIC[2] || trailer[7] != MAGIC[3]) {
      throw new IllegalArgumentException("Cannot read a Parquet trailer: no PAR1 magic");
    }
    long length = (trailer[0] & 0xFFL) | (trailer[1] & 0xFFL) << 8 | (trailer[2] & 0xFFL) << 16
        | (trailer[3] & 0xFFL) << 24;
    if (length > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("Cannot read a Parquet footer of " + length + " bytes");
    }
    return (int) length + 8;
  }

  /** Parses a footer suffix: the Thrift FileMetaData followed by the 8-byte trailer. */
  public static ParquetFooter parseSuffix(byte[] suffix) {
    if (suffix.length < 8) {
      throw new IllegalArgumentException("Cannot read a Parquet footer from " + suffix.length + " bytes");
    }
    byte[] trailer = java.util.Arrays.copyOfRange(suffix, suffix.length - 8, suffix.length);
    int length = suffixLength(trailer);
    if (length > suffix.length) {
      throw new IllegalArgumentException("Cannot read a Parquet footer of " + length
          + " bytes from a suffix of " + suffix.length);
    }
    return parse(suffix, suffix.length - length, length - 8);
  }

  /** Parses {@code length} bytes of Thrift FileMetaData at {@code offset}. */
  public static ParquetFooter parse(byte[] bytes, int offset, int length) {
    CompactReader in = new CompactReader(bytes, offset, offset + length);
    try {
      return readFileMetaData(in);
    } catch (ArrayIndexOutOfBoundsException e) {
      throw new IllegalArgumentException("Cannot read a Parquet footer: truncated at " + in.pos, e);
    }
  }

  private static ParquetFooter readFileMetaData(CompactReader in) {
    long rows = 0;
    List<RowGroup> groups = new ArrayList<>();
    in.structBegin();
    int type;
    while ((type = in.fieldHeader()) != CompactReader.STOP) {
      switch (in.fieldId) {
        case 3 -> rows = in.i64(type);
        case 4 -> {
          int n = in.listHeader(CompactReader.STRUCT);
          for (int i = 0; i < n; i++) {
            groups.add(readRowGroup(in, i));
          }
        }
        default -> in.skip(type);
      }
    }
    in.structEnd();
    return new ParquetFooter(rows, groups);
  }

  private static RowGroup readRowGroup(CompactReader in, int index) {
    List<ColumnChunk> columns = new ArrayList<>();
    long rows = 0;
    in.structBegin();
    int type;
    while ((type = in.fieldHeader()) != CompactReader.STOP) {
      switch (in.fieldId) {
        case 1 -> {
          int n = in.listHeader(CompactReader.STRUCT);
          for (int i = 0; i < n; i++) {
            columns.add(readColumnChunk(in));
          }
        }
        case 3 -> rows = in.i64(type);
        default -> in.skip(type);
      }
    }
    in.structEnd();
    return new RowGroup(index, rows, columns);
  }

  private static ColumnChunk readColumnChunk(CompactReader in) {
    ColumnChunk chunk = null;
    in.structBegin();
    int type;
    while ((type = in.fieldHeader()) != CompactReader.STOP) {
      if (in.fieldId == 3 && type == CompactReader.STRUCT) {
        chunk = readColumnMetaData(in);
      } else {
        in.skip(type);
      }
    }
    in.structEnd();
    if (chunk == null) {
      throw new IllegalArgumentException("Cannot read a Parquet footer: a column chunk has no metadata");
    }
    return chunk;
  }

  private static ColumnChunk readColumnMetaData(CompactReader in) {
    List<String> path = new ArrayList<>();
    long values = 0;
    long compressed = -1;
    long dataPage = -1;
    long dictionaryPage = -1;
    in.structBegin();
    int type;
    while ((type = in.fieldHeader()) != CompactReader.STOP) {
      switch (in.fieldId) {
        case 3 -> {
          int n = in.listHeader(CompactReader.BINARY);
          for (int i = 0; i < n; i++) {
            path.add(in.string());
          }
        }
        case 5 -> values = in.i64(type);
        case 7 -> compressed = in.i64(type);
        case 9 -> dataPage = in.i64(type);
        case 11 -> dictionaryPage = in.i64(type);
        default -> in.skip(type);
      }
    }
    in.structEnd();
    if (compressed < 0 || dataPage < 0) {
      throw new IllegalArgumentException("Cannot read a Parquet footer: column " + path
          + " lacks its size or data page offset");
    }
    long start = dictionaryPage > 0 && dictionaryPage < dataPage ? dictionaryPage : dataPage;
    return new ColumnChunk(String.join(".", path), start, compressed, values);
  }

  /** The Thrift compact protocol, reading only. */
  private static final class CompactReader {
    static final int STOP = 0;
    static final int TRUE = 1;
    static final int FALSE = 2;
    static final int BYTE = 3;
    static final int I16 = 4;
    static final int I32 = 5;
    static final int I64 = 6;
    static final int DOUBLE = 7;
    static final int BINARY = 8;
    static final int LIST = 9;
    static final int SET = 10;
    static final int MAP = 11;
    static final int STRUCT = 12;
    private static final int MAX_DEPTH = 64;

    private final byte[] bytes;
    private final int end;
    int pos;
    int fieldId;
    private final int[] lastIds = new int[MAX_DEPTH];
    private int depth = -1;

    CompactReader(byte[] bytes, int offset, int end) {
      this.bytes = bytes;
      this.pos = offset;
      this.end = end;
    }

    void structBegin() {
      if (++depth >= MAX_DEPTH) {
        throw new IllegalArgumentException("Cannot read a Parquet footer: nested too deep at " + pos);
      }
      lastIds[depth] = 0;
    }

    void structEnd() {
      depth--;
    }

    /** Reads a field header; returns its type (STOP at the end of the struct). */
    int fieldHeader() {
      int b = readByte() & 0xFF;
      int type = b & 0x0F;
      if (type == STOP) {
        return STOP;
      }
      int delta = b >>> 4;
      fieldId = delta != 0 ? lastIds[depth] + delta : (short) zigzag(varint());
      lastIds[depth] = fieldId;
      return type;
    }

    int listHeader(int expectedElementType) {
      int b = readByte() & 0xFF;
      int size = b >>> 4;
      if (size == 15) {
        size = (int) varint();
      }
      int element = b & 0x0F;
      if (element != expectedElementType) {
        throw new IllegalArgumentException("Cannot read a Parquet footer: list of type " + element
            + " where " + expectedElementType + " was expected, at " + pos);
      }
      checkSize(size);
      return size;
    }

    long i64(int type) {
      if (type != I64 && type != I32 && type != I16) {
        throw new IllegalArgumentException("Cannot read a Parquet footer: integer field " + fieldId
            + " has type " + type + " at " + pos);
      }
      return zigzag(varint());
    }

    String string() {
      int length = (int) varint();
      checkSize(length);
      String s = new String(bytes, pos, length, StandardCharsets.UTF_8);
      pos += length;
      return s;
    }

    void skip(int type) {
      switch (type) {
        case TRUE, FALSE -> { }
        case BYTE -> pos++;
        case I16, I32, I64 -> varint();
        case DOUBLE -> pos += 8;
        case BINARY -> {
          int length = (int) varint();
          checkSize(length);
          pos += length;
        }
        case LIST, SET -> {
          int b = readByte() & 0xFF;
          int size = b >>> 4;
          if (size == 15) {
            size = (int) varint();
          }
          checkSize(size);
          int element = b & 0x0F;
          for (int i = 0; i < size; i++) {
            skipElement(element);
          }
        }
        case MAP -> {
          int size = (int) varint();
          checkSize(size);
          if (size > 0) {
            int kv = readByte() & 0xFF;
            for (int i = 0; i < size; i++) {
              skipElement(kv >>> 4);
              skipElement(kv & 0x0F);
            }
          }
        }
        case STRUCT -> {
          structBegin();
          int t;
          while ((t = fieldHeader()) != STOP) {
            skip(t);
          }
          structEnd();
        }
        default -> throw new IllegalArgumentException("Cannot read a Parquet footer: unknown type "
            + type + " at " + pos);
      }
    }

    /** Booleans inside containers take a byte; everything else as a field value. */
    private void skipElement(int type) {
      if (type == TRUE || type == FALSE) {
        pos++;
      } else {
        skip(type);
      }
    }

    private void checkSize(int size) {
      if (size < 0 || size > end - pos) {
        throw new IllegalArgumentException("Cannot read a Parquet footer: size " + size + " at " + pos
            + " overruns the footer");
      }
    }

    private byte readByte() {
      if (pos >= end) {
        throw new IllegalArgumentException("Cannot read a Parquet footer: truncated at " + pos);
      }
      return bytes[pos++];
    }

    private long varint() {
      long result = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        byte b = readByte();
        result |= (long) (b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
          return result;
        }
      }
      throw new IllegalArgumentException("Cannot read a Parquet footer: varint too long at " + pos);
    }

    private static long zigzag(long n) {
      return (n >>> 1) ^ -(n & 1);
    }
  }
}
