package io.verglas.materializer.data;

import io.verglas.materializer.types.VarLongs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Writes the names of the data files the writer makes in about 25 bytes instead of 50: a name
 * of Iceberg's file factory, {@code <dir>/<partition id>-<task id>-<operation id>-<file
 * count>.parquet}, with the partition id and file count zero-padded to five digits and the
 * operation id 16 bytes in 22 URL-safe Base64 characters ({@code PartitionedDataWriter}), is
 * written as its directory and those numbers and bytes.
 *
 * <p>Why: the key index stores a data file's name in the entry of every key, and RocksDB copies
 * each entry into its memtable, flushes and compacts it, and uploads it with each incremental
 * checkpoint; the name was most of an entry's bytes.
 *
 * <p>A name is written so only when the form read back is the very same string; any other name
 * (another writer's, a path not under the table) is not, and its entry holds it as it is.
 * Writing remembers the form of the last few String instances written (the entries of a flush
 * share a few), reading the String of the last few forms read.
 *
 * <p>Not thread-safe: a serializer that holds one is stateful and duplicates it per thread.
 */
public final class DataFileNames {
  private static final String SUFFIX = ".parquet";
  private static final int OPERATION_ID_BYTES = 16;
  private static final int OPERATION_ID_CHARS = 22;
  /** The most digits a number of a name may have: it then fits an int. */
  private static final int MAX_DIGITS = 9;
  private static final int RECENT = 8;
  private static final byte[] NOT_NAMED = new byte[0];
  private static final Base64.Encoder OPERATION_IDS = Base64.getUrlEncoder().withoutPadding();

  private final String[] written = new String[RECENT];
  private final byte[][] writtenForms = new byte[RECENT][];
  private int nextWritten;
  private final byte[][] readForms = new byte[RECENT][];
  private final String[] readNames = new String[RECENT];
  private int nextRead;
  private byte[] scratch = new byte[64];

  /**
   * The compact form of {@code path} (a length, then the form), or null when it is not a name
   * this class writes so.
   */
  public byte[] formOf(String path) {
    for (int i = 0; i < RECENT; i++) {
      if (written[i] == path) {
        return writtenForms[i] == NOT_NAMED ? null : writtenForms[i];
      }
    }
    byte[] form = encode(path);
    written[nextWritten] = path;
    writtenForms[nextWritten] = form == null ? NOT_NAMED : form;
    nextWritten = (nextWritten + 1) % RECENT;
    return form;
  }

  /** Reads a name written as its {@link #formOf form}. */
  public String read(DataInputView in) throws IOException {
    int length = (int) VarLongs.read(in);
    if (scratch.length < length) {
      scratch = new byte[Math.max(length, scratch.length * 2)];
    }
    in.readFully(scratch, 0, length);
    for (int i = 0; i < RECENT && readForms[i] != null; i++) {
      if (Arrays.equals(scratch, 0, length, readForms[i], 0, readForms[i].length)) {
        return readNames[i];
      }
    }
    byte[] form = Arrays.copyOf(scratch, length);
    String name = decode(new DataInputDeserializer(form));
    readForms[nextRead] = form;
    readNames[nextRead] = name;
    nextRead = (nextRead + 1) % RECENT;
    return name;
  }

  private static byte[] encode(String path) {
    int nameStart = path.lastIndexOf('/') + 1;
    if (!path.endsWith(SUFFIX)) {
      return null;
    }
    int firstDash = path.indexOf('-', nameStart);
    int secondDash = firstDash < 0 ? -1 : path.indexOf('-', firstDash + 1);
    int operationEnd = secondDash + 1 + OPERATION_ID_CHARS;
    int end = path.length() - SUFFIX.length();
    if (secondDash < 0 || operationEnd >= end || path.charAt(operationEnd) != '-') {
      return null;
    }
    int partitionId = number(path, nameStart, firstDash);
    int taskId = number(path, firstDash + 1, secondDash);
    int fileCount = number(path, operationEnd + 1, end);
    byte[] operationId = operationId(path.substring(secondDash + 1, operationEnd));
    if (partitionId < 0 || taskId < 0 || fileCount < 0 || operationId == null) {
      return null;
    }
    try {
      DataOutputSerializer form = new DataOutputSerializer(32);
      byte[] dir = path.substring(0, nameStart).getBytes(StandardCharsets.UTF_8);
      VarLongs.write(dir.length, form);
      form.write(dir);
      VarLongs.write(partitionId, form);
      VarLongs.write(taskId, form);
      form.write(operationId);
      VarLongs.write(fileCount, form);
      byte[] bytes = form.getCopyOfBuffer();
      if (!decode(new DataInputDeserializer(bytes)).equals(path)) {
        return null; // not the canonical spelling (leading zeros, say): kept as it is
      }
      DataOutputSerializer sized = new DataOutputSerializer(bytes.length + 2);
      VarLongs.write(bytes.length, sized);
      sized.write(bytes);
      return sized.getCopyOfBuffer();
    } catch (IOException e) {
      throw new IllegalStateException("Cannot encode data file name " + path, e);
    }
  }

  private static String decode(DataInputView in) throws IOException {
    byte[] dir = new byte[(int) VarLongs.read(in)];
    in.readFully(dir);
    long partitionId = VarLongs.read(in);
    long taskId = VarLongs.read(in);
    byte[] operationId = new byte[OPERATION_ID_BYTES];
    in.readFully(operationId);
    long fileCount = VarLongs.read(in);
    return new String(dir, StandardCharsets.UTF_8) + padded(partitionId) + "-" + taskId + "-"
        + OPERATION_IDS.encodeToString(operationId) + "-" + padded(fileCount) + SUFFIX;
  }

  private static String padded(long number) {
    String digits = Long.toString(number);
    return digits.length() >= 5 ? digits : "00000".substring(digits.length()) + digits;
  }

  /** The non-negative number spelled by {@code path[from, to)}, or -1. */
  private static int number(String path, int from, int to) {
    if (to <= from || to - from > MAX_DIGITS) {
      return -1;
    }
    int value = 0;
    for (int i = from; i < to; i++) {
      char c = path.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }

  private static byte[] operationId(String chars) {
    try {
      byte[] bytes = Base64.getUrlDecoder().decode(chars);
      return bytes.length == OPERATION_ID_BYTES ? bytes : null;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
