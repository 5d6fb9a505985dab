package io.verglas.cache.writeback.peer;

import io.verglas.cache.writeback.fragment.CorruptFragmentException;
import io.verglas.cache.writeback.fragment.FragmentFormat;
import io.verglas.cache.writeback.fragment.FragmentHeader;
import io.verglas.cache.writeback.fragment.FragmentReader;
import io.verglas.cache.writeback.fragment.ObjectIdentity;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Reads a fragment a peer holds, one cell per request: the peer checks the cell against the
 * CRC32C in its file, sends the cell with that checksum, and this side checks it again before
 * the cell reaches the decoder, so a cell damaged on the disk or on the way is an erasure,
 * never decoded. Memory: the cell being read.
 */
final class RemoteFragmentReader implements FragmentReader {
  private final PeerLink link;
  private final FragmentHeader header;

  private RemoteFragmentReader(PeerLink link, FragmentHeader header) {
    this.link = link;
    this.header = header;
  }

  static FragmentReader open(PeerLink link, ObjectIdentity identity, int index) throws IOException {
    byte[] bytes = link.call(FragmentProtocol.fragment(FragmentProtocol.READ, identity, index, FragmentProtocol.HEADER));
    FragmentHeader header = FragmentFormat.decodeHeader(bytes);
    if (!header.identity().equals(identity) || header.index() != index) {
      throw new CorruptFragmentException("Cannot read fragment " + index + " of " + identity + ": the peer has "
          + "fragment " + header.index() + " of " + header.identity() + " under its name");
    }
    return new RemoteFragmentReader(link, header);
  }

  @Override
  public FragmentHeader header() {
    return header;
  }

  @Override
  public void readCell(long stripe, ByteBuffer cell) throws IOException {
    int expected = FragmentReader.cellLength(header, stripe, cell);
    byte[] answer = link.call(FragmentProtocol.fragment(FragmentProtocol.READ, header.identity(), header.index(),
        stripe));
    CRC32C crc = new CRC32C();
    crc.update(answer, 0, Math.min(expected, answer.length));
    if (answer.length != expected + FragmentFormat.CELL_CRC_BYTES
        || ByteBuffer.wrap(answer).getInt(expected) != (int) crc.getValue()) {
      throw new CorruptFragmentException("Cannot read cell " + stripe + " of fragment " + header.index() + " of "
          + header.identity() + " from its peer: checksum mismatch");
    }
    cell.duplicate().put(answer, 0, expected);
  }

  @Override
  public void close() {}
}
