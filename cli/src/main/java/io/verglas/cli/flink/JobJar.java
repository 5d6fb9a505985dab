package io.verglas.cli.flink;

import io.verglas.maintenance.job.MaintenanceJob;
import io.verglas.materializer.MaterializerJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * A job's jar and entry class: {@code materializer} and {@code maintenance} name the jobs'
 * shaded jars the cli build copies to {@code target/jobs}; anything else is a jar's path, whose
 * manifest names the entry class.
 */
public record JobJar(String name, Path jar, String entryClass) {
  public static final String MATERIALIZER = "materializer";
  public static final String MAINTENANCE = "maintenance";

  public static JobJar resolve(String job) {
    return switch (job) {
      case MATERIALIZER -> built(job, MaterializerJob.class.getName());
      case MAINTENANCE -> built(job, MaintenanceJob.class.getName());
      default -> ofPath(Path.of(job));
    };
  }

  private static JobJar built(String job, String entryClass) {
    Path jar = LauncherFiles.jobsDir().resolve(job + ".jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("Cannot find the " + job + " job's jar: " + jar
          + " does not exist (built by 'mvn -B -DskipTests -pl cli -am package')");
    }
    return new JobJar(job, jar, entryClass);
  }

  private static JobJar ofPath(Path jar) {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalArgumentException("Cannot submit " + jar + ": no such file (give "
          + MATERIALIZER + ", " + MAINTENANCE + " or a job jar's path)");
    }
    try (JarFile file = new JarFile(jar.toFile())) {
      Manifest manifest = file.getManifest();
      String main = manifest == null ? null : manifest.getMainAttributes().getValue("Main-Class");
      if (main == null) {
        throw new IllegalArgumentException("Cannot submit " + jar
            + ": its manifest names no Main-Class");
      }
      return new JobJar(jar.getFileName().toString(), jar, main);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot submit " + jar + ": not a jar (" + e.getMessage() + ")", e);
    }
  }
}
