package io.verglas.cache.cluster.placement;

import java.util.Objects;

/**
 * One cache node as the cluster sees it: its stable id (the rendezvous identity), where its peer
 * protocol listens, the cache capacity it advertises (its placement weight) and its state.
 */
public record Member(String id, String peerHost, int peerPort, long capacityBytes, MemberState state) {
  public Member {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(peerHost, "peerHost");
    Objects.requireNonNull(state, "state");
    if (id.isBlank()) {
      throw new IllegalArgumentException("Invalid member id: blank");
    }
    if (peerPort < 0 || peerPort > 65535) {
      throw new IllegalArgumentException("Invalid peer port: " + peerPort + " (0..65535)");
    }
    if (capacityBytes <= 0) {
      throw new IllegalArgumentException("Invalid capacity of member " + id + ": " + capacityBytes);
    }
  }

  public boolean owns() {
    return state == MemberState.ACTIVE;
  }

  /** This member with another state. */
  public Member withState(MemberState value) {
    return new Member(id, peerHost, peerPort, capacityBytes, value);
  }
}
