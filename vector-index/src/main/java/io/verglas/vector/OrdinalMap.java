package io.verglas.vector;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Ordinal → (data file, position): which table row each vector of an index is. Compact (an int
 * and a long per row, each file name once) and serialized in a versioned format, the payload of
 * the {@code verglas-vamana-ordinals-v1} blob.
 */
/*
 * Format version 1, big-endian: int version (1), int file count, per file an int byte length and
 * the UTF-8 location, int row count, then per ordinal an int file number and a long position.
 */
public final class OrdinalMap {
  static final int VERSION = 1;

  private final String[] files;
  private final int[] fileOf;
  private final long[] positions;

  private OrdinalMap(String[] files, int[] fileOf, long[] positions) {
    this.files = files;
    this.fileOf = fileOf;
    this.positions = positions;
  }

  public static OrdinalMap of(List<RowRef> rows) {
    Map<String, Integer> numbers = new HashMap<>();
    List<String> files = new ArrayList<>();
    int[] fileOf = new int[rows.size()];
    long[] positions = new long[rows.size()];
    for (int i = 0; i < rows.size(); i++) {
      RowRef row = rows.get(i);
      fileOf[i] = numbers.computeIfAbsent(row.file(), f -> {
        files.add(f);
        return files.size() - 1;
      });
      positions[i] = row.position();
    }
    return new OrdinalMap(files.toArray(new String[0]), fileOf, positions);
  }

  public int size() { return positions.length; }

  public RowRef row(int ordinal) {
    return new RowRef(files[fileOf[ordinal]], positions[ordinal]);
  }

  String file(int ordinal) { return files[fileOf[ordinal]]; }

  long position(int ordinal) { return positions[ordinal]; }

  int fileCount() { return files.length; }

  String fileName(int number) { return files[number]; }

  int fileNumber(int ordinal) { return fileOf[ordinal]; }

  /** Heap bytes held, for the decoded-index cache's weight. */
  long sizeInBytes() {
    long bytes = 12L * positions.length;
    for (String file : files) {
      bytes += 40 + 2L * file.length();
    }
    return bytes;
  }

  public ByteBuffer serialize() {
    byte[][] names = new byte[files.length][];
    long length = 12;
    for (int i = 0; i < files.length; i++) {
      names[i] = files[i].getBytes(StandardCharsets.UTF_8);
      length += 4 + names[i].length;
    }
    length += 12L * positions.length;
    if (length > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("Cannot serialize ordinal map: " + length + " bytes");
    }
    ByteBuffer out = ByteBuffer.allocate((int) length);
    out.putInt(VERSION).putInt(files.length);
    for (byte[] name : names) {
      out.putInt(name.length).put(name);
    }
    out.putInt(positions.length);
    for (int i = 0; i < positions.length; i++) {
      out.putInt(fileOf[i]).putLong(positions[i]);
    }
    return out.flip();
  }

  public static OrdinalMap deserialize(ByteBuffer bytes) {
    ByteBuffer in = bytes.duplicate();
    int version = in.getInt();
    if (version != VERSION) {
      throw new IllegalArgumentException("Cannot read ordinal map: unknown version " + version);
    }
    String[] files = new String[in.getInt()];
    for (int i = 0; i < files.length; i++) {
      byte[] name = new byte[in.getInt()];
      in.get(name);
      files[i] = new String(name, StandardCharsets.UTF_8);
    }
    int count = in.getInt();
    int[] fileOf = new int[count];
    long[] positions = new long[count];
    for (int i = 0; i < count; i++) {
      fileOf[i] = in.getInt();
      positions[i] = in.getLong();
      if (fileOf[i] < 0 || fileOf[i] >= files.length) {
        throw new IllegalArgumentException("Cannot read ordinal map: ordinal " + i
            + " names file " + fileOf[i] + " of " + files.length);
      }
    }
    return new OrdinalMap(files, fileOf, positions);
  }
}
