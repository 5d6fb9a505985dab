package io.verglas.cache.writeback;

import io.verglas.cache.writeback.fragment.FragmentHolder;
import io.verglas.cache.writeback.fragment.FragmentStore;
import java.util.Objects;

/**
 * A node that can hold fragments, as the stager sees it: its id (its rendezvous identity) and
 * where its fragments are (a local store, or a peer's over the peer protocol). Its placement
 * weight is the holder's ceiling.
 */
public record FragmentNode(String id, FragmentHolder store) {
  public FragmentNode {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(store, "store");
  }

  /** The node's fragments as a local store (a directory of this process). */
  public FragmentStore local() {
    if (store instanceof FragmentStore local) {
      return local;
    }
    throw new IllegalStateException("Cannot use the fragments of node " + id + " as a local store: they are on a peer");
  }
}
