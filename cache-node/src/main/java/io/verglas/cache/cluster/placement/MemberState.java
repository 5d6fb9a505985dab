package io.verglas.cache.cluster.placement;

/**
 * A member's part in placement: {@code ACTIVE} members own keys; a {@code DRAINING} member owns
 * none but keeps serving what it holds (a donor) until it leaves.
 */
public enum MemberState {
  ACTIVE,
  DRAINING
}
