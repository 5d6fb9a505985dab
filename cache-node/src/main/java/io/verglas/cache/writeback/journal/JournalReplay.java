package io.verglas.cache.writeback.journal;

import io.verglas.cache.writeback.fragment.LocalFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a journal file's records up to its last intact one.
 *
 * <p>A record is torn when the file ends inside it, or when it fails its CRC and ends exactly
 * at the end of the file: what a crash during the last append leaves. A torn record was never
 * acknowledged (the append's fsync had not returned), so it is discarded. A record failing its
 * CRC with intact-looking bytes after it is damage, not a torn append, and replay refuses the
 * file rather than silently dropping the acknowledged writes behind it.
 */
record JournalReplay(List<JournalRecord> records, long validEnd) {
  static JournalReplay read(Path file, FileChannel channel) throws IOException {
    long size = channel.size();
    checkHeader(file, channel);
    List<JournalRecord> records = new ArrayList<>();
    long at = JournalCodec.FILE_HEADER;
    ByteBuffer head = ByteBuffer.allocate(JournalCodec.RECORD_HEADER);
    while (size - at >= JournalCodec.RECORD_HEADER) {
      head.clear();
      readFully(channel, head, at);
      int length = head.getInt(0);
      long end = at + JournalCodec.RECORD_HEADER + (length & 0xFFFFFFFFL);
      if (length < 0 || length > JournalCodec.MAX_PAYLOAD || end > size) {
        break; // the file ends inside this record
      }
      ByteBuffer payload = ByteBuffer.allocate(length);
      readFully(channel, payload, at + JournalCodec.RECORD_HEADER);
      if (JournalCodec.crc(payload.array()) != head.getInt(4)) {
        if (end == size) {
          break;
        }
        throw new IOException("Cannot replay journal " + file + ": corrupt record at byte " + at
            + " followed by " + (size - end) + " more bytes");
      }
      records.add(parse(file, payload.array(), at));
      at = end;
    }
    return new JournalReplay(records, at);
  }

  private static JournalRecord parse(Path file, byte[] payload, long at) throws IOException {
    try {
      return JournalCodec.parse(payload);
    } catch (IllegalArgumentException e) {
      throw new IOException("Cannot replay journal " + file + ": record at byte " + at + ": " + e.getMessage(), e);
    }
  }

  private static void checkHeader(Path file, FileChannel channel) throws IOException {
    ByteBuffer header = ByteBuffer.allocate(JournalCodec.FILE_HEADER);
    readFully(channel, header, 0);
    byte[] bytes = header.array();
    if (!Arrays.equals(bytes, 0, 4, JournalCodec.MAGIC, 0, 4)) {
      throw new IOException("Cannot replay journal " + file + ": not a write journal (bad magic)");
    }
    if (bytes[4] != JournalCodec.VERSION) {
      throw new IOException("Cannot replay journal " + file + ": unknown version " + (bytes[4] & 0xFF));
    }
  }

  private static void readFully(FileChannel channel, ByteBuffer into, long offset) throws IOException {
    long end = offset + into.remaining();
    if (!LocalFiles.readFully(channel, into, offset)) {
      throw new IOException("Cannot replay journal: it ends before byte " + end);
    }
  }
}
