package io.verglas.cache.writeback.peer;

import io.verglas.cache.writeback.fragment.FragmentHeader;
import io.verglas.cache.writeback.fragment.FragmentOutput;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A fragment being written on a peer: each cell is copied into one request and sent; the next
 * cell waits for the previous one's answer, so at most one cell per fragment is in flight while
 * the coordinator encodes the next stripe, and the fragments of a stripe travel to their nodes
 * side by side. {@link #commit} returns once the peer fsynced the fragment's file and directory.
 */
final class RemoteFragmentOutput implements FragmentOutput {
  private final PeerLink link;
  private final FragmentHeader header;
  private final long session;
  private CompletableFuture<byte[]> inFlight = CompletableFuture.completedFuture(new byte[0]);
  private boolean committed;
  private boolean closed;

  RemoteFragmentOutput(PeerLink link, FragmentHeader header, long session) {
    this.link = link;
    this.header = header;
    this.session = session;
  }

  @Override
  public FragmentHeader header() {
    return header;
  }

  @Override
  public void writeCell(ByteBuffer cell) throws IOException {
    if (closed) {
      throw new IllegalStateException("Cannot write fragment " + header.index() + " of " + header.identity() + ": closed");
    }
    PeerLink.await(inFlight);
    ByteBuffer bytes = cell.duplicate();
    byte[] copy = new byte[bytes.remaining()];
    bytes.get(copy);
    inFlight = link.send(FragmentProtocol.session(FragmentProtocol.CELL, session, copy, 0, copy.length));
  }

  @Override
  public void commit() throws IOException {
    if (committed) {
      return;
    }
    if (closed) {
      throw new IllegalStateException("Cannot commit fragment " + header.index() + " of " + header.identity() + ": abandoned");
    }
    PeerLink.await(inFlight);
    link.call(FragmentProtocol.session(FragmentProtocol.COMMIT, session, new byte[0], 0, 0));
    committed = true;
    closed = true;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    // the peer abandons the fragment; if this does not reach it, the connection's close will
    inFlight.handle((v, e) -> link.send(FragmentProtocol.session(FragmentProtocol.ABORT, session, new byte[0], 0, 0)));
  }
}
