package io.verglas.cli.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Reads a table as a user's standard Iceberg client does: the {@code standard-client} module's
 * probe in a child JVM whose classpath holds Iceberg's own jars, {@code iceberg-aws-bundle} and
 * the SQLite driver, nothing of ours, configured with exactly the catalog properties an
 * {@code endpoints.json} advertises, or as a client of the cache node's REST catalog.
 */
final class StandardClient {
  private static final Path MODULE = Path.of("..", "standard-client", "target");
  private static final String PROBE = "io.verglas.standardclient.StandardClientProbe";

  private StandardClient() {}

  /** How the client finds the catalog: the advertised JDBC properties, or the REST catalog. */
  enum Catalog { JDBC, REST }

  /** Every row of {@code table}, each as column name → the value's string form. */
  static List<Map<String, String>> readRows(Path endpointsFile, Catalog catalog,
      TableIdentifier table) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", classpath(), PROBE, endpointsFile.toString(),
        catalog.name().toLowerCase(java.util.Locale.ROOT)));
    command.addAll(List.of(table.namespace().levels()));
    command.add(table.name());
    Path out = Files.createTempFile("standard-client", ".jsonl");
    Path err = Files.createTempFile("standard-client", ".err");
    try {
      Process process = new ProcessBuilder(command).redirectOutput(out.toFile())
          .redirectError(err.toFile()).start();
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new AssertionError("The standard client did not finish within 2 minutes");
      }
      if (process.exitValue() != 0) {
        throw new AssertionError("The standard client failed (exit " + process.exitValue()
            + "):\n" + Files.readString(err, StandardCharsets.UTF_8));
      }
      return parse(Files.readAllLines(out, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  private static List<Map<String, String>> parse(List<String> lines) throws IOException {
    ObjectMapper mapper = new ObjectMapper();
    List<Map<String, String>> rows = new ArrayList<>();
    for (String line : lines) {
      JsonNode json = mapper.readTree(line);
      Map<String, String> row = new LinkedHashMap<>();
      json.fields().forEachRemaining(f -> row.put(f.getKey(),
          f.getValue().isNull() ? null : f.getValue().asText()));
      rows.add(row);
    }
    return rows;
  }

  private static String classpath() throws IOException {
    Path classpathFile = MODULE.resolve("standard-client.classpath");
    try (var jars = Files.list(MODULE)) {
      Path jar = jars.filter(p -> p.getFileName().toString().endsWith(".jar")).findFirst()
          .orElseThrow(() -> new AssertionError("Cannot find the standard-client jar in "
              + MODULE.toAbsolutePath() + ": build the standard-client module first"));
      return jar.toAbsolutePath() + java.io.File.pathSeparator
          + Files.readString(classpathFile, StandardCharsets.UTF_8).trim();
    }
  }
}
