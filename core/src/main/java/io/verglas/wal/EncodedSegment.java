package io.verglas.wal;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The bytes of one encoded WAL segment, kept as the parts they are made of: the framing the
 * codec wrote and the batches' Arrow IPC arrays, referenced, not copied. A writer streams a
 * segment of many megabytes to the object store without assembling it in one array first.
 * Made by {@link WalSegmentCodec#encodeParts}; the parts must not be modified afterwards.
 */
public final class EncodedSegment {
  private final List<byte[]> parts;
  private final long length;

  EncodedSegment(List<byte[]> parts) {
    this.parts = List.copyOf(parts);
    long total = 0;
    for (byte[] part : parts) {
      total += part.length;
    }
    this.length = total;
  }

  /** The segment's size in bytes. */
  public long length() {
    return length;
  }

  /** A fresh stream over the segment's bytes (callable any number of times). */
  public InputStream newInputStream() {
    List<InputStream> streams = new ArrayList<>(parts.size());
    for (byte[] part : parts) {
      streams.add(new ByteArrayInputStream(part));
    }
    return new SequenceInputStream(Collections.enumeration(streams));
  }

  /** The segment as one array (a copy). */
  public byte[] toByteArray() {
    if (length > Integer.MAX_VALUE - 16) {
      throw new IllegalStateException("Cannot copy WAL segment of " + length + " bytes into an array");
    }
    byte[] bytes = new byte[(int) length];
    int offset = 0;
    for (byte[] part : parts) {
      System.arraycopy(part, 0, bytes, offset, part.length);
      offset += part.length;
    }
    return bytes;
  }

  /** Whether {@code bytes} are exactly this segment's bytes. */
  public boolean contentEquals(byte[] bytes) {
    if (bytes.length != length) {
      return false;
    }
    int offset = 0;
    for (byte[] part : parts) {
      if (!java.util.Arrays.equals(part, 0, part.length, bytes, offset, offset + part.length)) {
        return false;
      }
      offset += part.length;
    }
    return true;
  }
}
