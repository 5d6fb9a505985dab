package io.verglas.materializer.keyindex;

import io.verglas.materializer.types.VarLongs;
import java.io.IOException;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * What the key index knows of one key group's pages: how many there are ({@link PageLayout})
 * and how many entries they hold. Kept in the state beside the pages, under the group's
 * {@link PageLayout#metaKey}.
 *
 * <p>Format (version 1): the version byte, then pages and entries as unsigned varints.
 */
final class GroupMeta {
  static final int VERSION = 1;

  private int pages;
  private long entries;

  GroupMeta(int pages, long entries) {
    if (pages < 0 || entries < 0 || (pages == 0) != (entries == 0)) {
      throw new IllegalArgumentException("Cannot describe a key group of " + entries
          + " entries in " + pages + " pages");
    }
    this.pages = pages;
    this.entries = entries;
  }

  static GroupMeta empty() {
    return new GroupMeta(0, 0);
  }

  int pages() {
    return pages;
  }

  long entries() {
    return entries;
  }

  /** Grows to {@code newPages} pages (never fewer) holding {@code newEntries} entries. */
  void set(int newPages, long newEntries) {
    if (newPages < pages || newEntries < entries) {
      throw new IllegalArgumentException("Cannot shrink a key group from " + pages + " pages, "
          + entries + " entries to " + newPages + ", " + newEntries);
    }
    this.pages = newPages;
    this.entries = newEntries;
  }

  byte[] toBytes() {
    DataOutputSerializer out = new DataOutputSerializer(12);
    try {
      out.writeByte(VERSION);
      VarLongs.write(pages, out);
      VarLongs.write(entries, out);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot write key group meta", e);
    }
    return out.getCopyOfBuffer();
  }

  /** Reads {@link #toBytes}; null (a group never written) reads as {@link #empty}. */
  static GroupMeta fromBytes(byte[] bytes) {
    if (bytes == null) {
      return empty();
    }
    try {
      DataInputDeserializer in = new DataInputDeserializer(bytes);
      int version = in.readUnsignedByte();
      if (version != VERSION) {
        throw new IllegalStateException("Cannot read key group meta of unknown version "
            + version);
      }
      long pages = VarLongs.read(in);
      long entries = VarLongs.read(in);
      if (pages > PageLayout.MAX_PAGES) {
        throw new IllegalStateException("Cannot read key group meta: " + pages + " pages");
      }
      return new GroupMeta((int) pages, entries);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot read key group meta: " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return "GroupMeta{" + pages + " pages, " + entries + " entries}";
  }
}
