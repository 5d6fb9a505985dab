package io.verglas.cli.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.verglas.access.ScopedTokens;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The local stack's secrets: S3 access key and secret, the Flight bearer token, and the admin
 * endpoint's two bearer tokens: {@code adminToken} reads ({@code /stats}, {@code GET /events},
 * {@code /maintenance}) and {@code eventsToken} publishes to the change feed ({@code POST
 * /events}; it reads too, as the jobs that publish also follow the feed), and the bearer
 * {@code catalogToken} of the cache node's Iceberg REST catalog ({@code /catalog}), and the S3
 * key pair of the stack's own jobs ({@code jobAccessKey}, {@code jobSecretKey}: a background key
 * of the cache node, whose reads record no heat and admit nothing), and the key
 * ({@code scopedTokenKey}) the worker harness mints each run's scoped token with and the
 * servers verify them with (kept, so a restarted stack still accepts the tokens of runs in
 * flight), with the keys it replaced ({@code previousScopedTokenKeys}, at most
 * {@value ScopedTokens#MAX_PREVIOUS_KEYS}, newest first) which the servers still accept, see
 * {@link #rotateScopedTokenKey}. Generated at the
 * first start and kept in the data directory (owner-only), so a restarted stack keeps serving
 * the clients that were configured against it. A file from an earlier version gets the
 * secrets it lacks added; those it has are kept, as are keys this version does not know.
 */
public record LocalCredentials(String accessKey, String secretKey, String flightToken,
    String adminToken, String eventsToken, String catalogToken, String jobAccessKey,
    String jobSecretKey, String scopedTokenKey, List<String> previousScopedTokenKeys) {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String PREVIOUS = "previousScopedTokenKeys";

  public LocalCredentials {
    previousScopedTokenKeys = List.copyOf(previousScopedTokenKeys);
  }

  /** The verifier and minter of scoped tokens: the current key, the previous ones accepted. */
  public ScopedTokens scopedTokens(Clock clock) {
    return new ScopedTokens(scopedTokenKey, previousScopedTokenKeys, clock);
  }

  /**
   * Replaces the scoped token key of {@code file} (created if missing) with a new one. With
   * {@code keepPrevious} the replaced key joins the previous keys (the oldest beyond
   * {@value ScopedTokens#MAX_PREVIOUS_KEYS} dropped), so tokens handed out before keep working
   * until they expire; without it every previous key is dropped, which revokes every token
   * minted before. Takes effect when the stack starts next.
   */
  public static LocalCredentials rotateScopedTokenKey(Path file, boolean keepPrevious) {
    try {
      ObjectNode stored = filled(file);
      LocalCredentials current = of(stored);
      ArrayNode previous = stored.putArray(PREVIOUS);
      if (keepPrevious) {
        Stream.concat(Stream.of(current.scopedTokenKey), current.previousScopedTokenKeys.stream())
            .limit(ScopedTokens.MAX_PREVIOUS_KEYS).forEach(previous::add);
      }
      stored.put("scopedTokenKey", hex(new SecureRandom(), 32));
      write(file, stored);
      return of(stored);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot rotate the scoped token key in " + file + ": "
          + e.getMessage(), e);
    }
  }

  public static LocalCredentials loadOrCreate(Path file) {
    try {
      return of(filled(file));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot load or create credentials in " + file + ": "
          + e.getMessage(), e);
    }
  }

  /** The stored secrets of {@code file}, those it lacks added (and the file rewritten if so). */
  private static ObjectNode filled(Path file) throws IOException {
    ObjectNode stored = Files.exists(file) ? read(file) : MAPPER.createObjectNode();
    SecureRandom random = new SecureRandom();
    boolean added = fill(stored, "accessKey", r -> "VG" + hex(r, 9).toUpperCase(), random)
        | fill(stored, "secretKey", r -> hex(r, 20), random)
        | fill(stored, "flightToken", r -> hex(r, 24), random)
        | fill(stored, "adminToken", r -> hex(r, 24), random)
        | fill(stored, "eventsToken", r -> hex(r, 24), random)
        | fill(stored, "catalogToken", r -> hex(r, 24), random)
        | fill(stored, "jobAccessKey", r -> "VGJOB" + hex(r, 8).toUpperCase(), random)
        | fill(stored, "jobSecretKey", r -> hex(r, 20), random)
        | fill(stored, "scopedTokenKey", r -> hex(r, 32), random);
    if (added) {
      write(file, stored);
    }
    return stored;
  }

  private static LocalCredentials of(ObjectNode stored) throws IOException {
    return new LocalCredentials(stored.get("accessKey").asText(),
        stored.get("secretKey").asText(), stored.get("flightToken").asText(),
        stored.get("adminToken").asText(), stored.get("eventsToken").asText(),
        stored.get("catalogToken").asText(), stored.get("jobAccessKey").asText(),
        stored.get("jobSecretKey").asText(), stored.get("scopedTokenKey").asText(),
        previousKeys(stored));
  }

  private static List<String> previousKeys(ObjectNode stored) throws IOException {
    JsonNode previous = stored.get(PREVIOUS);
    if (previous == null || previous.isNull()) {
      return List.of();
    }
    if (!previous.isArray()) {
      throw new IOException(PREVIOUS + " is not an array");
    }
    List<String> keys = new ArrayList<>();
    previous.forEach(key -> keys.add(key.asText()));
    return keys;
  }

  private static ObjectNode read(Path file) throws IOException {
    JsonNode root = MAPPER.readTree(file.toFile());
    if (!(root instanceof ObjectNode object)) {
      throw new IOException("not a JSON object");
    }
    return object;
  }

  /** Sets {@code key} to a new secret unless it holds one; whether it did. */
  private static boolean fill(ObjectNode stored, String key, Function<SecureRandom, String> secret,
      SecureRandom random) {
    JsonNode value = stored.get(key);
    if (value != null && value.isTextual() && !value.asText().isBlank()) {
      return false;
    }
    stored.put(key, secret.apply(random));
    return true;
  }

  /** Writes owner-only from the start (a temporary file renamed over the old one). */
  private static void write(Path file, ObjectNode stored) throws IOException {
    OwnerOnlyFile.write(file, MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(stored));
  }

  /** Names the access key only: the secrets stay out of logs and exception messages. */
  @Override
  public String toString() {
    return "LocalCredentials[accessKey=" + accessKey + ", jobAccessKey=" + jobAccessKey
        + ", secrets redacted]";
  }

  private static String hex(SecureRandom random, int bytes) {
    byte[] value = new byte[bytes];
    random.nextBytes(value);
    return HexFormat.of().formatHex(value);
  }
}
