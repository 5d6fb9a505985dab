package io.verglas.cli.local;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The local stack's secrets: S3 access key and secret, and the Flight bearer token. Generated at
 * the first start and kept in the data directory (owner-only), so a restarted stack keeps
 * serving the clients that were configured against it.
 */
public record LocalCredentials(String accessKey, String secretKey, String flightToken) {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  public static LocalCredentials loadOrCreate(Path file) {
    try {
      if (Files.exists(file)) {
        return MAPPER.readValue(file.toFile(), LocalCredentials.class);
      }
      SecureRandom random = new SecureRandom();
      LocalCredentials created = new LocalCredentials("VG" + hex(random, 9).toUpperCase(),
          hex(random, 20), hex(random, 24));
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(created));
      try {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
      } catch (UnsupportedOperationException ignored) {
        // not a POSIX file system: permissions are the platform's default
      }
      Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      return created;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot load or create credentials in " + file, e);
    }
  }

  private static String hex(SecureRandom random, int bytes) {
    byte[] value = new byte[bytes];
    random.nextBytes(value);
    return HexFormat.of().formatHex(value);
  }
}
