package io.verglas.cli.flink;

import java.io.File;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The classpath of a session cluster's processes: Flink's own jars and the libraries they need,
 * taken from the launcher's classpath (the Flink distribution is not in the registries, its
 * modules are).
 *
 * <p>Design. The launcher's classpath also carries everything the stack runs (Iceberg, the AWS
 * SDK, Arrow, our own modules). A cluster given all of it would run a job whose jar misses a
 * class as if nothing were wrong; a Flink distribution's {@code lib/} holds Flink and its
 * runtime dependencies only, so this class keeps the jars whose names are Flink's modules
 * (flink-*, but not the filesystem and metrics reporter plugins, which go to the plugins
 * directory) and the
 * third-party libraries flink-runtime, flink-clients, flink-streaming-java, the RocksDB state
 * backend and flink-runtime-web depend on, plus the logging the launcher uses (slf4j with
 * logback, in place of the distribution's log4j). The JDBC drivers of the catalog (SQLite,
 * PostgreSQL) are there too, loaded parent-first ({@code classloader.parent-first-patterns}
 * in flink-conf/): {@code DriverManager} hands a driver only to the class loader that
 * registered it, so a driver inside a job's jar serves that job's first class loader and fails
 * the next one ("No suitable driver") after a restart, or in the other job; Flink's advice is
 * the same, drivers in {@code lib/}.
 */
public final class FlinkClasspath {
  private static final Pattern FLINK_JAR = Pattern.compile("(flink-(?!s3-fs|azure-fs|gs-fs|metrics-prometheus)[a-z0-9-]+"
      + "|frocksdbjni|kryo|reflectasm|minlog|objenesis|snakeyaml-engine|jsr305|javassist"
      + "|commons-(collections|compress|math3|cli|io|lang3|text)|snappy-java|lz4-java|async-profiler"
      + "|slf4j-api|logback-classic|logback-core|sqlite-jdbc|postgresql)-[0-9][^/]*\\.jar");

  private FlinkClasspath() {}

  /** Flink's part of this JVM's classpath, in its order. */
  public static List<Path> ofThisJvm() {
    return of(System.getProperty("java.class.path"));
  }

  static List<Path> of(String classpath) {
    List<Path> jars = Stream.of(classpath.split(File.pathSeparator))
        .filter(entry -> !entry.isBlank())
        .map(Path::of)
        .filter(path -> FLINK_JAR.matcher(path.getFileName().toString()).matches())
        .collect(Collectors.toList());
    if (jars.stream().noneMatch(p -> p.getFileName().toString().startsWith("flink-runtime-web-"))) {
      throw new IllegalStateException("Cannot start a Flink session cluster: flink-runtime and "
          + "flink-runtime-web are not on this JVM's classpath (" + jars.size() + " Flink jars found)");
    }
    return List.copyOf(jars);
  }

  static String join(List<Path> jars) {
    return jars.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
  }
}
