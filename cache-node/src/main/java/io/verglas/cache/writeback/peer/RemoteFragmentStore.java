package io.verglas.cache.writeback.peer;

import io.verglas.cache.writeback.fragment.FragmentFormat;
import io.verglas.cache.writeback.fragment.FragmentHeader;
import io.verglas.cache.writeback.fragment.FragmentHolder;
import io.verglas.cache.writeback.fragment.FragmentOutput;
import io.verglas.cache.writeback.fragment.FragmentReader;
import io.verglas.cache.writeback.fragment.ObjectIdentity;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Another cluster node's fragments, over the peer protocol ({@link FragmentProtocol}): what a
 * coordinator writes fragments to, reads them from and releases them on.
 *
 * <p>The peer's free space is not known here: {@link #hasRoomFor} only checks the ceiling, and a
 * peer that is full refuses at {@link #create}, which the stager takes as an erasure from the
 * start. The ceiling is this node's own fragment ceiling (cluster members are configured alike).
 */
final class RemoteFragmentStore implements FragmentHolder {
  private static final AtomicLong SESSIONS = new AtomicLong();

  private final PeerLink link;
  private final long ceilingBytes;

  RemoteFragmentStore(PeerLink link, long ceilingBytes) {
    this.link = link;
    this.ceilingBytes = ceilingBytes;
  }

  @Override
  public long ceilingBytes() {
    return ceilingBytes;
  }

  @Override
  public boolean hasRoomFor(long bytes) {
    return bytes <= ceilingBytes;
  }

  @Override
  public FragmentOutput create(FragmentHeader header) throws IOException {
    long session = SESSIONS.incrementAndGet();
    byte[] bytes = FragmentFormat.encodeHeader(header);
    link.call(FragmentProtocol.session(FragmentProtocol.CREATE, session, bytes, 0, bytes.length));
    return new RemoteFragmentOutput(link, header, session);
  }

  @Override
  public FragmentReader open(ObjectIdentity identity, int index) throws IOException {
    return RemoteFragmentReader.open(link, identity, index);
  }

  @Override
  public boolean release(ObjectIdentity identity, int index) throws IOException {
    byte[] answer = link.call(FragmentProtocol.fragment(FragmentProtocol.RELEASE, identity, index, 0));
    return answer.length == 1 && answer[0] == 1;
  }
}
