package io.verglas.cache.writeback.peer;

import io.verglas.cache.writeback.fragment.FragmentHeader;
import io.verglas.cache.writeback.fragment.GuardedFragmentOutput;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A fragment being written on a peer: each cell is copied into one request and sent; the next
 * cell waits for the previous one's answer, so at most one cell per fragment is in flight while
 * the coordinator encodes the next stripe, and the fragments of a stripe travel to their nodes
 * side by side. {@link #commit} returns once the peer fsynced the fragment's file and directory.
 */
final class RemoteFragmentOutput extends GuardedFragmentOutput {
  private final PeerLink link;
  private final long session;
  private CompletableFuture<byte[]> inFlight = CompletableFuture.completedFuture(new byte[0]);

  RemoteFragmentOutput(PeerLink link, FragmentHeader header, long session) {
    super(header);
    this.link = link;
    this.session = session;
  }

  @Override
  protected void write(ByteBuffer cell) throws IOException {
    PeerLink.await(inFlight);
    ByteBuffer bytes = cell.duplicate();
    byte[] copy = new byte[bytes.remaining()];
    bytes.get(copy);
    inFlight = link.send(FragmentProtocol.session(FragmentProtocol.CELL, session, copy, 0, copy.length));
  }

  @Override
  protected void makeDurable() throws IOException {
    PeerLink.await(inFlight);
    link.call(FragmentProtocol.session(FragmentProtocol.COMMIT, session, new byte[0], 0, 0));
  }

  @Override
  protected void abandon() {
    // the peer abandons the fragment; if this does not reach it, the connection's close will
    inFlight.handle((v, e) -> link.send(FragmentProtocol.session(FragmentProtocol.ABORT, session, new byte[0], 0, 0)));
  }
}
