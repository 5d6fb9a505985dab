package io.verglas.cache.writeback.fragment;

import java.io.IOException;

/**
 * Where one node's fragments are, as a coordinator sees it: this node's {@link FragmentStore},
 * or another cluster node's reached over the peer protocol. Every method blocks until the
 * holder answered.
 */
public interface FragmentHolder {
  /** The holder's byte ceiling: its weight in fragment placement. */
  long ceilingBytes();

  /** Whether a fragment of {@code bytes} would fit now, as far as this side knows. */
  boolean hasRoomFor(long bytes);

  /**
   * Reserves the fragment's space and starts writing it; the fragment counts only once {@link
   * FragmentOutput#commit} returned (its file and directory fsynced on the holder).
   *
   * @throws FragmentStoreFullException if it does not fit under the ceiling
   */
  FragmentOutput create(FragmentHeader header) throws IOException;

  /**
   * Opens fragment {@code index} of the write.
   *
   * @throws java.nio.file.NoSuchFileException if the holder does not have it
   * @throws CorruptFragmentException if its header or length is damaged
   */
  FragmentReader open(ObjectIdentity identity, int index) throws IOException;

  /** Deletes fragment {@code index} of the write, durably; false if it was not there. */
  boolean release(ObjectIdentity identity, int index) throws IOException;
}
