package io.verglas.cache.cluster.membership;

import io.verglas.cache.cluster.ClusterSecret;
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
 * attributes (or of another version) is not a cache node and is left out of the view, and so
 * is one whose attributes do not carry a valid tag under the cluster secret: JGroups itself
 * admits anyone who reaches the gossip port, but only holders of the secret become owners.
 * (A copy of a real member's attributes names that member's peer endpoint: harmless.)
 */
final class MemberAddress {
  static final String VERSION = "1";
  private static final String V = "verglas.v";
  private static final String ID = "verglas.id";
  private static final String HOST = "verglas.peer-host";
  private static final String PORT = "verglas.peer-port";
  private static final String CAPACITY = "verglas.capacity";
  private static final String TAG = "verglas.tag";

  private MemberAddress() {}

  static ExtendedUUID of(Member self, ClusterSecret secret) {
    byte[] signed = signed(self.id(), self.peerHost(), Integer.toString(self.peerPort()),
        Long.toString(self.capacityBytes()));
    return ExtendedUUID.randomUUID(self.id())
        .put(V, bytes(VERSION))
        .put(ID, bytes(self.id()))
        .put(HOST, bytes(self.peerHost()))
        .put(PORT, bytes(Integer.toString(self.peerPort())))
        .put(CAPACITY, bytes(Long.toString(self.capacityBytes())))
        .put(TAG, secret.tag(signed, 0, signed.length));
  }

  /** The member an address advertises, or null if it advertises none we understand or trust. */
  static Member parse(Address address, MemberState state, ClusterSecret secret) {
    if (!(address instanceof ExtendedUUID e) || !VERSION.equals(text(e.get(V)))) {
      return null;
    }
    try {
      byte[] signed = signed(text(e.get(ID)), text(e.get(HOST)), text(e.get(PORT)), text(e.get(CAPACITY)));
      if (!secret.verify(signed, 0, signed.length, e.get(TAG))) {
        return null;
      }
      return new Member(text(e.get(ID)), text(e.get(HOST)), Integer.parseInt(text(e.get(PORT))),
          Long.parseLong(text(e.get(CAPACITY))), state);
    } catch (RuntimeException malformed) {
      return null;
    }
  }

  /** The advertised fields, unambiguously joined (NUL never occurs in them), with the version. */
  private static byte[] signed(String id, String host, String port, String capacity) {
    return bytes(String.join("\0", VERSION, id, host, port, capacity));
  }

  private static byte[] bytes(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] value) {
    return value == null ? null : new String(value, StandardCharsets.UTF_8);
  }
}
