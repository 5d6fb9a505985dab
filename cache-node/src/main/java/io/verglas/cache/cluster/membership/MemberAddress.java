package io.verglas.cache.cluster.membership;

import io.verglas.cache.cluster.placement.Member;
import io.verglas.cache.cluster.placement.MemberState;
import java.nio.charset.StandardCharsets;
import org.jgroups.Address;
import org.jgroups.util.ExtendedUUID;

/**
 * What a node advertises, carried in its JGroups address ({@link ExtendedUUID} key/value
 * attributes): every view then names each member's id, peer endpoint and capacity, with no
 * extra round of messages and nothing to reconcile. The attributes are fixed for the life of
 * the channel; the one thing that changes, draining, is broadcast instead (see
 * {@link Membership}). Versioned by the {@code verglas.v} key; an address without our
 * attributes (or of another version) is not a cache node and is left out of the view.
 */
final class MemberAddress {
  static final String VERSION = "1";
  private static final String V = "verglas.v";
  private static final String ID = "verglas.id";
  private static final String HOST = "verglas.peer-host";
  private static final String PORT = "verglas.peer-port";
  private static final String CAPACITY = "verglas.capacity";

  private MemberAddress() {}

  static ExtendedUUID of(Member self) {
    return ExtendedUUID.randomUUID(self.id())
        .put(V, bytes(VERSION))
        .put(ID, bytes(self.id()))
        .put(HOST, bytes(self.peerHost()))
        .put(PORT, bytes(Integer.toString(self.peerPort())))
        .put(CAPACITY, bytes(Long.toString(self.capacityBytes())));
  }

  /** The member an address advertises, or null if it advertises none we understand. */
  static Member parse(Address address, MemberState state) {
    if (!(address instanceof ExtendedUUID e) || !VERSION.equals(text(e.get(V)))) {
      return null;
    }
    try {
      return new Member(text(e.get(ID)), text(e.get(HOST)), Integer.parseInt(text(e.get(PORT))),
          Long.parseLong(text(e.get(CAPACITY))), state);
    } catch (RuntimeException malformed) {
      return null;
    }
  }

  private static byte[] bytes(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] value) {
    return value == null ? null : new String(value, StandardCharsets.UTF_8);
  }
}
