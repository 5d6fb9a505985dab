package io.verglas.cache.writeback;

import io.verglas.cache.writeback.fragment.FragmentStore;
import java.util.Objects;

/**
 * A node that can hold fragments, as the stager sees it: its id (its rendezvous identity) and
 * its fragment store. Its placement weight is the store's ceiling.
 */
public record FragmentNode(String id, FragmentStore store) {
  public FragmentNode {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(store, "store");
  }
}
