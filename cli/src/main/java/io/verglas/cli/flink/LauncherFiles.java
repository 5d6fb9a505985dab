package io.verglas.cli.flink;

import java.nio.file.Path;

/**
 * Where the cli build puts what a session cluster needs beside the classpath: the jobs' jars
 * ({@code target/jobs}) and Flink's filesystem plugins ({@code target/plugins}), found under
 * {@code verglas.home} (set by the launcher) or else the working directory (the cli module's
 * tests).
 */
final class LauncherFiles {
  private LauncherFiles() {}

  static Path targetDir() {
    String home = System.getProperty("verglas.home");
    return home == null ? Path.of("target").toAbsolutePath() : Path.of(home, "cli", "target");
  }

  static Path jobsDir() {
    return targetDir().resolve("jobs");
  }

  static Path pluginsDir() {
    return targetDir().resolve("plugins");
  }
}
