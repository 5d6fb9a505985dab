package io.verglas.workers.harness;

import io.verglas.wal.WalSegmentCodec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Idempotency keys of a run's writes, derived only from what a re-dispatch of the same trigger
 * has again: the deployment, the trigger's identity (the job's, e.g.
 * {@code deployment/trigger/intervalStart}) and an ordinal. Never from the attempt or the lease
 * generation, which differ between runs of one trigger.
 *
 * <p>A key that would exceed what the WAL holds (less what {@code TableClient} appends for a
 * commit of several batches) names the trigger by a SHA-256 prefix of its identity instead.
 */
public final class CommitKeys {
  static final int MAX_LENGTH = WalSegmentCodec.MAX_KEY_LENGTH - 16;
  private static final int HASH_BYTES = 16;

  private CommitKeys() {}

  /** The key of the {@code ordinal}-th commit (from 0) of a run of {@code identity}. */
  public static String commit(String deployment, String identity, int ordinal) {
    return bounded(deployment + "/" + identity, "/c" + ordinal);
  }

  /**
   * The key of message {@code index} of the {@code ordinal}-th publish (both from 0) of a run of
   * {@code identity}: what consumers drop a re-dispatched run's repeated messages by.
   */
  public static String message(String deployment, String identity, int ordinal, int index) {
    return bounded(deployment + "/" + identity, "/p" + ordinal + "." + index);
  }

  /** The key of the {@code seq}-th log event of run {@code runId}. */
  static String logEvent(String runId, int seq) {
    return bounded("log/" + runId, "/" + seq);
  }

  private static String bounded(String prefix, String suffix) {
    String key = prefix + suffix;
    return key.length() <= MAX_LENGTH ? key : "sha256:" + sha256(prefix) + suffix;
  }

  private static String sha256(String text) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, HASH_BYTES);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot hash a key: no SHA-256", e);
    }
  }
}
