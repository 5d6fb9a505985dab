package io.verglas.cli.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.function.Function;

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
 * flight). Generated at the
 * first start and kept in the data directory (owner-only), so a restarted stack keeps serving
 * the clients that were configured against it. A file from an earlier version gets the
 * secrets it lacks added; those it has are kept, as are keys this version does not know.
 */
public record LocalCredentials(String accessKey, String secretKey, String flightToken,
    String adminToken, String eventsToken, String catalogToken, String jobAccessKey,
    String jobSecretKey, String scopedTokenKey) {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  public static LocalCredentials loadOrCreate(Path file) {
    try {
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
      return new LocalCredentials(stored.get("accessKey").asText(),
          stored.get("secretKey").asText(), stored.get("flightToken").asText(),
          stored.get("adminToken").asText(), stored.get("eventsToken").asText(),
          stored.get("catalogToken").asText(), stored.get("jobAccessKey").asText(),
          stored.get("jobSecretKey").asText(), stored.get("scopedTokenKey").asText());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot load or create credentials in " + file, e);
    }
  }

  private static ObjectNode read(Path file) throws IOException {
    JsonNode root = MAPPER.readTree(file.toFile());
    if (!(root instanceof ObjectNode object)) {
      throw new IOException("Cannot read credentials " + file + ": not a JSON object");
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
