package io.verglas.cache.cluster.peer;

import io.verglas.cache.cluster.ClusterSecret;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.verglas.cache.block.BlockId;
import java.nio.charset.StandardCharsets;

/**
 * The peer protocol's frames (version 1). Every frame travels behind a 4-byte length prefix.
 *
 * <pre>
 * request:  version:u8=1  type:u8  requestId:i64  fields  tag
 *   GET_BLOCK (1) fields: bucket:str  key:str  etag:str  blockSize:i32  index:i64  length:i32
 *   FORGET (2) fields:    bucket:str  key:str
 *   REPLICATE (3) fields: as GET_BLOCK (the sender owns the block and offers a standby copy;
 *                         answered OK at once, the receiver fetches it with GET_BLOCK if it will)
 *   WRITE_BACK (4) fields: connection-scoped write-back request, opaque here (its operations,
 *                         fragments and journal records, are {@code writeback.peer.FragmentProtocol}'s)
 *   tag: 32 bytes, HMAC-SHA256 of everything before it
 * response: version:u8=1  status:u8  requestId:i64  then: the block (GET_BLOCK, OK), the
 *           answer (WRITE_BACK, OK) or a UTF-8 message (WRITE_BACK, FAILED); nothing otherwise
 * str:      length:u16, UTF-8 bytes
 * </pre>
 *
 * <p>Why our own binary frames rather than HTTP/1.1: the protocol has one request whose fields
 * are all fixed, requests are pipelined on one connection per peer and answered out of order
 * (a hit answers before a cold fill queued ahead of it), which HTTP/1.1 cannot do without one
 * connection per request in flight; and a tag over exact bytes is simpler than canonicalizing
 * HTTP headers. Unknown versions are answered with {@link Status#BAD_REQUEST}, never guessed at.
 */
final class PeerFrames {
  static final byte VERSION = 1;
  static final byte GET_BLOCK = 1;
  static final byte FORGET = 2;
  static final byte REPLICATE = 3;
  static final byte WRITE_BACK = 4;
  /** The largest response frame: a block of the largest size plus the response header. */
  static final int MAX_FRAME = 8 * 1024 * 1024 + 1024;
  /** The largest write-back request or answer: a fragment's cell and its framing fit in it. */
  static final int MAX_WRITE_BACK_BYTES = 8 * 1024 * 1024;
  /** The largest write-back request frame; other types are held to {@link PeerRequestDecoder#MAX_SMALL_REQUEST_FRAME}. */
  static final int MAX_REQUEST_FRAME = MAX_FRAME + ClusterSecret.TAG_BYTES;

  /** Response statuses. */
  enum Status {
    OK, MISS, DENIED, BAD_REQUEST, FAILED;

    static Status of(int code) {
      return code >= 0 && code < values().length ? values()[code] : BAD_REQUEST;
    }
  }

  /** A decoded, authenticated request. */
  sealed interface Request permits BlockRequest, ForgetRequest, ReplicateRequest, WriteBackRequest {
    long requestId();
  }

  /** For {@code length} bytes of block {@code id}. */
  record BlockRequest(long requestId, BlockId id, int length) implements Request {}

  /** An owner's offer of a standby copy of block {@code id} ({@code length} bytes). */
  record ReplicateRequest(long requestId, BlockId id, int length) implements Request {}

  /** To drop the resolved ETag of a key another node wrote. */
  record ForgetRequest(long requestId, String bucket, String key) implements Request {}

  /** A write-back operation for this node's fragment service (see {@link PeerService#writeBack}). */
  record WriteBackRequest(long requestId, byte[] body) implements Request {}

  private PeerFrames() {}

  static ByteBuf request(ByteBufAllocator alloc, ClusterSecret auth, long requestId, BlockId id, int length) {
    return block(alloc, auth, GET_BLOCK, requestId, id, length);
  }

  static ByteBuf replicate(ByteBufAllocator alloc, ClusterSecret auth, long requestId, BlockId id, int length) {
    return block(alloc, auth, REPLICATE, requestId, id, length);
  }

  private static ByteBuf block(ByteBufAllocator alloc, ClusterSecret auth, byte type, long requestId,
      BlockId id, int length) {
    ByteBuf out = alloc.heapBuffer();
    out.writeByte(VERSION).writeByte(type).writeLong(requestId);
    string(out, id.bucket());
    string(out, id.key());
    string(out, id.etag());
    out.writeInt(id.blockSize()).writeLong(id.index()).writeInt(length);
    return signed(out, auth);
  }

  static ByteBuf forget(ByteBufAllocator alloc, ClusterSecret auth, long requestId, String bucket, String key) {
    ByteBuf out = alloc.heapBuffer();
    out.writeByte(VERSION).writeByte(FORGET).writeLong(requestId);
    string(out, bucket);
    string(out, key);
    return signed(out, auth);
  }

  static ByteBuf writeBack(ByteBufAllocator alloc, ClusterSecret auth, long requestId, byte[] body) {
    if (body.length > MAX_WRITE_BACK_BYTES) {
      throw new IllegalArgumentException("Cannot encode a write-back request of " + body.length + " bytes: at most "
          + MAX_WRITE_BACK_BYTES);
    }
    ByteBuf out = alloc.heapBuffer(body.length + 64);
    out.writeByte(VERSION).writeByte(WRITE_BACK).writeLong(requestId).writeBytes(body);
    return signed(out, auth);
  }

  private static ByteBuf signed(ByteBuf out, ClusterSecret auth) {
    byte[] signed = ByteBufUtil.getBytes(out);
    return out.writeBytes(auth.tag(signed, 0, signed.length));
  }

  /**
   * The request in {@code frame}; throws {@link SecurityException} when its tag does not match
   * and {@link IllegalArgumentException} when it is malformed or of another version.
   */
  static Request parseRequest(ByteBuf frame, ClusterSecret auth) {
    byte[] bytes = ByteBufUtil.getBytes(frame);
    if (bytes.length < 2 + 8 + ClusterSecret.TAG_BYTES || bytes[0] != VERSION
        || bytes[1] < GET_BLOCK || bytes[1] > WRITE_BACK) {
      throw new IllegalArgumentException("Cannot read a peer request: unknown version or type");
    }
    int signedLength = bytes.length - ClusterSecret.TAG_BYTES;
    byte[] tag = java.util.Arrays.copyOfRange(bytes, signedLength, bytes.length);
    if (!auth.verify(bytes, 0, signedLength, tag)) {
      throw new SecurityException("Cannot serve a peer request: wrong cluster secret");
    }
    ByteBuf in = io.netty.buffer.Unpooled.wrappedBuffer(bytes, 2, signedLength - 2);
    long requestId = in.readLong();
    if (bytes[1] == WRITE_BACK) {
      return new WriteBackRequest(requestId, ByteBufUtil.getBytes(in));
    }
    String bucket = string(in);
    String key = string(in);
    if (bytes[1] == FORGET) {
      if (in.isReadable()) {
        throw new IllegalArgumentException("Cannot read a peer request: trailing bytes");
      }
      return new ForgetRequest(requestId, bucket, key);
    }
    String etag = string(in);
    BlockId id = new BlockId(bucket, key, etag, in.readInt(), in.readLong());
    int length = in.readInt();
    if (length <= 0 || length > id.blockSize() || in.isReadable()) {
      throw new IllegalArgumentException("Cannot read a peer request: invalid length " + length);
    }
    return bytes[1] == REPLICATE ? new ReplicateRequest(requestId, id, length)
        : new BlockRequest(requestId, id, length);
  }

  static ByteBuf responseHead(ByteBufAllocator alloc, Status status, long requestId) {
    return alloc.heapBuffer(10).writeByte(VERSION).writeByte(status.ordinal()).writeLong(requestId);
  }

  private static void string(ByteBuf out, String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > 0xffff) {
      throw new IllegalArgumentException("Cannot encode a peer request: a name of " + bytes.length + " bytes");
    }
    out.writeShort(bytes.length).writeBytes(bytes);
  }

  private static String string(ByteBuf in) {
    int length = in.readUnsignedShort();
    return in.readCharSequence(length, StandardCharsets.UTF_8).toString();
  }
}
