package io.verglas.cache.s3;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

/**
 * Integrity checks of a request body, computed while it streams in and verified at its end:
 * {@code Content-MD5}, the signed hex {@code x-amz-content-sha256}, and the flexible checksums
 * {@code x-amz-checksum-crc32|crc32c|crc64nvme|sha1|sha256} sent as a header or as an aws-chunked
 * trailer (announced in {@code x-amz-trailer}). Only what the request asks for is computed. An
 * unknown {@code x-amz-checksum-*} algorithm is refused rather than ignored.
 */
final class PayloadChecksums {
  private static final String PREFIX = "x-amz-checksum-";

  enum Algorithm {
    CRC32("crc32", 4, () -> new ChecksumHasher(new CRC32(), 4)),
    CRC32C("crc32c", 4, () -> new ChecksumHasher(new CRC32C(), 4)),
    CRC64NVME("crc64nvme", 8, () -> new ChecksumHasher(new Crc64Nvme(), 8)),
    SHA1("sha1", 20, () -> new DigestHasher("SHA-1")),
    SHA256("sha256", 32, () -> new DigestHasher("SHA-256"));

    final String header;
    final int bytes;
    private final Supplier<Hasher> factory;

    Algorithm(String name, int bytes, Supplier<Hasher> factory) {
      this.header = PREFIX + name;
      this.bytes = bytes;
      this.factory = factory;
    }

    static Algorithm forHeader(String header) {
      for (Algorithm a : values()) {
        if (a.header.equals(header)) {
          return a;
        }
      }
      return null;
    }
  }

  private interface Hasher {
    void update(ByteBuffer data);

    byte[] finish();
  }

  private record Check(Algorithm algorithm, Hasher hasher, String expected) {}

  private final List<Check> checks = new ArrayList<>();
  private final Algorithm trailerAlgorithm;
  private final Hasher trailerHasher;
  private final Hasher md5;
  private final byte[] expectedMd5;
  private final Hasher payloadSha256;
  private final String expectedPayloadSha256;
  private final Map<String, String> computed = new LinkedHashMap<>();

  private PayloadChecksums(HttpHeaders headers, String signedPayloadSha256) {
    for (Map.Entry<String, String> h : headers) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      if (!name.startsWith(PREFIX) || name.equals(PREFIX + "algorithm")
          || name.equals(PREFIX + "type") || name.equals(PREFIX + "mode")) {
        continue;
      }
      Algorithm algorithm = Algorithm.forHeader(name);
      if (algorithm == null) {
        throw S3Exception.notImplemented("checksum header " + name);
      }
      checkEncoding(algorithm, h.getValue());
      checks.add(new Check(algorithm, algorithm.factory.get(), h.getValue().trim()));
    }
    String trailer = headers.get("x-amz-trailer");
    if (trailer != null) {
      trailerAlgorithm = Algorithm.forHeader(trailer.trim().toLowerCase(Locale.ROOT));
      if (trailerAlgorithm == null) {
        throw S3Exception.notImplemented("trailer " + trailer);
      }
      trailerHasher = trailerAlgorithm.factory.get();
    } else {
      trailerAlgorithm = null;
      trailerHasher = null;
    }
    String contentMd5 = headers.get("content-md5");
    if (contentMd5 != null) {
      try {
        expectedMd5 = Base64.getDecoder().decode(contentMd5.trim());
      } catch (IllegalArgumentException e) {
        throw new S3Exception(S3ErrorCode.INVALID_DIGEST,
            "The Content-MD5 you specified is not valid: " + contentMd5);
      }
      if (expectedMd5.length != 16) {
        throw new S3Exception(S3ErrorCode.INVALID_DIGEST,
            "The Content-MD5 you specified is not valid: " + contentMd5);
      }
      md5 = new DigestHasher("MD5");
    } else {
      expectedMd5 = null;
      md5 = null;
    }
    if (signedPayloadSha256 != null) {
      expectedPayloadSha256 = signedPayloadSha256.toLowerCase(Locale.ROOT);
      payloadSha256 = new DigestHasher("SHA-256");
    } else {
      expectedPayloadSha256 = null;
      payloadSha256 = null;
    }
  }

  /**
   * @param signedPayloadSha256 the hex SHA-256 the signature covers (PayloadMode.SHA256), else null
   */
  static PayloadChecksums of(HttpHeaders headers, String signedPayloadSha256) {
    return new PayloadChecksums(headers, signedPayloadSha256);
  }

  void update(ByteBuf data) {
    if (!data.isReadable()) {
      return;
    }
    for (ByteBuffer nio : data.nioBuffers(data.readerIndex(), data.readableBytes())) {
      for (Check check : checks) {
        check.hasher().update(nio.duplicate());
      }
      if (trailerHasher != null) {
        trailerHasher.update(nio.duplicate());
      }
      if (md5 != null) {
        md5.update(nio.duplicate());
      }
      if (payloadSha256 != null) {
        payloadSha256.update(nio.duplicate());
      }
    }
  }

  /** Verifies everything at the end of the body; trailers are the aws-chunked trailing headers. */
  void verify(Map<String, String> trailers) {
    if (payloadSha256 != null) {
      String actual = HexFormat.of().formatHex(payloadSha256.finish());
      if (!actual.equals(expectedPayloadSha256)) {
        throw new S3Exception(S3ErrorCode.X_AMZ_CONTENT_SHA256_MISMATCH,
            "The provided 'x-amz-content-sha256' header does not match what was computed.")
            .detail("ClientComputedContentSHA256", expectedPayloadSha256)
            .detail("S3ComputedContentSHA256", actual);
      }
    }
    if (md5 != null && !MessageDigest.isEqual(md5.finish(), expectedMd5)) {
      throw new S3Exception(S3ErrorCode.BAD_DIGEST,
          "The Content-MD5 you specified did not match what we received.");
    }
    for (Check check : checks) {
      verifyOne(check.algorithm(), check.hasher(), check.expected());
    }
    if (trailerAlgorithm != null) {
      String value = trailers.get(trailerAlgorithm.header);
      if (value == null) {
        throw new S3Exception(S3ErrorCode.INVALID_REQUEST,
            "The x-amz-trailer header names " + trailerAlgorithm.header
                + " but the body has no such trailer");
      }
      checkEncoding(trailerAlgorithm, value);
      verifyOne(trailerAlgorithm, trailerHasher, value.trim());
    }
  }

  /** Verified flexible checksums, to echo in the response like S3 does. */
  Map<String, String> responseHeaders() {
    return computed;
  }

  private void verifyOne(Algorithm algorithm, Hasher hasher, String expected) {
    String actual = Base64.getEncoder().encodeToString(hasher.finish());
    if (!actual.equals(expected)) {
      throw new S3Exception(S3ErrorCode.BAD_DIGEST,
          "The " + algorithm.name() + " you specified did not match the calculated checksum.")
          .detail("ClientComputedChecksum", expected)
          .detail("ServerComputedChecksum", actual);
    }
    computed.put(algorithm.header, actual);
  }

  private static void checkEncoding(Algorithm algorithm, String value) {
    byte[] decoded;
    try {
      decoded = Base64.getDecoder().decode(value.trim());
    } catch (IllegalArgumentException e) {
      decoded = null;
    }
    if (decoded == null || decoded.length != algorithm.bytes) {
      throw new S3Exception(S3ErrorCode.INVALID_REQUEST,
          "Value for " + algorithm.header + " header is invalid: " + value);
    }
  }

  private static final class ChecksumHasher implements Hasher {
    private final Checksum checksum;
    private final int bytes;

    ChecksumHasher(Checksum checksum, int bytes) {
      this.checksum = checksum;
      this.bytes = bytes;
    }

    @Override
    public void update(ByteBuffer data) {
      checksum.update(data);
    }

    @Override
    public byte[] finish() {
      long value = checksum.getValue();
      byte[] out = new byte[bytes];
      for (int i = 0; i < bytes; i++) {
        out[i] = (byte) (value >>> (8 * (bytes - 1 - i)));
      }
      return out;
    }
  }

  private static final class DigestHasher implements Hasher {
    private final MessageDigest digest;

    DigestHasher(String algorithm) {
      try {
        digest = MessageDigest.getInstance(algorithm);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("The JDK has no " + algorithm, e);
      }
    }

    @Override
    public void update(ByteBuffer data) {
      digest.update(data);
    }

    @Override
    public byte[] finish() {
      return digest.digest();
    }
  }
}
